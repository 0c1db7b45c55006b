#include "startup_checks.hpp"

#include <unistd.h>

#include <chrono>
#include <optional>
#include <pqxx/pqxx>
#include <stdexcept>
#include <thread>

#include "config/connection_strings.hpp"
#include "core/api/text_util.hpp"
#include "config/settings_file.hpp"
#include "db/schema/migrator.hpp"
#include "log_writer.hpp"
#include "answer_while_waiting.hpp"
#include "db/secrets/secret_rotation.hpp"

namespace keeper::fcgi {
namespace {

std::runtime_error key_problem(const core::settings& cfg, const db::key_error& e) {
    return std::runtime_error("secret_key_file (" + config::secret_key_path(cfg) + "): " + e.what());
}

db::secret_keyring load_keys(const core::settings& cfg) {
    try {
        return db::secret_keyring::load(config::secret_key_path(cfg));
    } catch (const db::key_error& e) {
        throw key_problem(cfg, e);
    }
}

// Whether a session set on one transaction is there for the next: not so behind a pooler in
// transaction mode (PgBouncer pool_mode=transaction), which hands each transaction whichever
// server connection is free. keeper needs its session: the timeouts and application_name it sets,
// the statements it prepares, and the server process it records to settle an in-doubt call
// (docs/scaling.md, "Capacity"). The probe pins one server connection in a
// transaction on `holder`, marks `probe`'s session, frees the pinned one last, and asks again: a
// transaction pooler serves that question from the connection freed last, which lacks the mark.
// Then it asks a few times more: a pooler that hands out the connection idle longest instead
// (PgBouncer's server_round_robin = 1) goes round its connections, the unmarked ones among them.
bool session_kept(const std::string& conninfo) {
    pqxx::connection holder{conninfo};
    pqxx::connection probe{conninfo};
    {
        pqxx::work pinned{holder};
        pinned.exec("SELECT 1");
        // A setting of keeper's own: a pooler carries a few standard ones over (application_name
        // among them), never this.
        pqxx::nontransaction{probe}.exec("SET keeper.session_probe = 'kept'");
        pinned.commit();
    }
    for (int ask = 0; ask < 5; ++ask) {
        const auto r = pqxx::nontransaction{probe}.exec1("SELECT current_setting('keeper.session_probe', true)");
        if (r[0].is_null() || r[0].as<std::string>() != "kept") return false;
    }
    return true;
}

// synchronous_commit as the workers' role has it, against the promise that an acknowledged write
// survives PostgreSQL's crash and, with a synchronous standby named, a failover. A warning, not a
// refusal: a database without a standby, or a test cluster, may choose less on purpose.
std::string durability_warning(pqxx::connection& conn) {
    pqxx::nontransaction tx{conn};
    const auto commit = tx.exec1("SELECT current_setting('synchronous_commit')")[0].as<std::string>();
    const auto standbys = tx.exec1("SELECT current_setting('synchronous_standby_names')")[0].as<std::string>();
    if (commit == "off") {
        return "synchronous_commit is off for the workers' role: an acknowledged write can be lost when PostgreSQL "
               "crashes (docs/design.md, \"No acknowledgement before replication\")";
    }
    if (commit == "local" && !standbys.empty()) {
        return "synchronous_commit is local while synchronous_standby_names is set: commits do not wait for the "
               "standby, and an acknowledged write can be lost in a failover (docs/design.md, \"No acknowledgement "
               "before replication\")";
    }
    return {};
}

}  // namespace

core::settings load_checked_settings(const std::string& config_path) {
    auto cfg = config::load_settings(config_path);
    load_keys(cfg);
    return cfg;
}

std::string database_check::schema_problem() const {
    if (!refused.empty())
        return "the database refuses the workers' role: " + refused + " (keeper-migrate.service grants it)";
    const std::string versions = "database schema is version " + std::to_string(found_version) +
                                 ", this keeper needs " + std::to_string(needed_version);
    if (found_version < needed_version) return versions + " (run keeperctl migrate: systemctl start keeper-migrate)";
    return versions + " (the database was migrated by a newer keeper: install that version again)";
}

database_check check_database(const core::settings& cfg) {
    const auto keys = load_keys(cfg);
    database_check out;
    out.needed_version = db::expected_schema_version();
    try {
        pqxx::connection conn{config::worker_conninfo(cfg)};
        out.reachable = true;
        if (!session_kept(config::worker_conninfo(cfg))) {
            throw std::runtime_error(
                "database_url: the workers' connections lose their session between transactions, as behind a "
                "pooler in transaction mode; keeper needs session pooling (PgBouncer pool_mode=session; "
                "docs/scaling.md, \"Capacity\")");
        }
        out.durability_warning = durability_warning(conn);
        out.found_version = db::current_schema_version(conn);
        if (out.found_version == out.needed_version) db::check_database_keys(conn, keys);
    } catch (const pqxx::broken_connection&) {
        out.reachable = false;
    } catch (const pqxx::sql_error& e) {
        // Reached, but refused (a role without its grants yet, as before keeper-migrate.service
        // ran `keeperctl roles`): what the pool waits out, saying so.
        out.reachable = true;
        out.refused = std::string{core::first_line(e.what())};
    } catch (const db::key_error& e) {
        throw key_problem(cfg, e);
    }
    return out;
}

checked_configuration check_for_reload(const std::string& config_path) {
    auto cfg = load_checked_settings(config_path);
    auto db = check_database(cfg);
    if (!db.schema_matches()) throw std::runtime_error(db.schema_problem());
    return {std::move(cfg), std::move(db)};
}

core::settings wait_for_configuration(const std::string& config_path, listen_sockets sockets) {
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

void wait_for_schema(const core::settings& cfg, listen_sockets sockets) {
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
        database_check db;
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

}  // namespace keeper::fcgi
