#include "startup_checks.hpp"

#include <unistd.h>

#include <chrono>
#include <optional>
#include <stdexcept>
#include <thread>

#include "config/connection_strings.hpp"
#include "config/settings_file.hpp"
#include "log_writer.hpp"
#include "answer_while_waiting.hpp"

namespace keeper::pool {

core::settings load_checked_settings(const std::string& config_path) {
    auto cfg = config::load_settings(config_path);
    db::open_key_file(config::secret_key_path(cfg));
    return cfg;
}

db::database_check check_database(const core::settings& cfg) {
    return db::check_database(config::worker_conninfo(cfg), config::secret_key_path(cfg));
}

checked_configuration check_for_reload(const std::string& config_path) {
    auto cfg = load_checked_settings(config_path);
    auto db = check_database(cfg);
    if (!db.schema_matches()) throw std::runtime_error(db.schema_problem());
    return {std::move(cfg), std::move(db)};
}

core::settings wait_for_configuration(const std::string& config_path, fcgi::listen_sockets sockets) {
    std::optional<core::settings> cfg;
    std::string said;
    const auto why_waiting = [&]() -> std::optional<std::string> {
        try {
            cfg = load_checked_settings(config_path);
            use_log_format(cfg->log_format);
            if (!said.empty()) log_event("keeper-fcgi", config_path + ": configuration ok; starting");
            return std::nullopt;
        } catch (const std::exception& e) {
            const std::string why = "the configuration is refused: " + std::string{e.what()};
            if (why != said) log_event("keeper-fcgi", "waiting: " + why);
            said = why;
            return why;
        }
    };
    answer_while_waiting(sockets, core::settings{}.body_limit, why_waiting, std::chrono::seconds{2});
    return *cfg;
}

void wait_for_schema(const core::settings& cfg, fcgi::listen_sockets sockets) {
    constexpr auto say_every = std::chrono::minutes{1};
    std::optional<std::chrono::steady_clock::time_point> said;
    const auto waiting = [&](const std::string& why) -> std::optional<std::string> {
        const auto now = std::chrono::steady_clock::now();
        if (!said || now - *said >= say_every) {
            log_event("keeper-fcgi", "waiting: " + why);
            said = now;
        }
        return why;
    };
    const auto why_waiting = [&]() -> std::optional<std::string> {
        db::database_check db;
        try {
            db = check_database(cfg);
        } catch (const std::exception& e) {
            return waiting(e.what());  // the key file cannot open what the database holds
        }
        // Not checked, not served: an unchecked database may be another schema's, a pooler's in
        // transaction mode, or one whose secrets this key file cannot open.
        if (!db.reachable) return waiting("database unreachable: the workers start once it is checked");
        if (db.schema_matches()) {
            if (said)
                log_event("keeper-fcgi",
                          "database schema is version " + std::to_string(db.found_version) + "; starting");
            if (!db.durability_warning.empty()) log_event("keeper-fcgi", "warning: " + db.durability_warning);
            return std::nullopt;
        }
        return waiting(db.schema_problem());
    };
    answer_while_waiting(sockets, cfg.body_limit, why_waiting, std::chrono::seconds{2});
}

}  // namespace keeper::pool
