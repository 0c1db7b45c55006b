// keeperctl: schema migrations and provisioning of what other parts of the payment system would
// create. Talks to the database named by the same configuration as the workers.
#include <functional>
#include <iostream>
#include <map>
#include <pqxx/pqxx>
#include <string>
#include <vector>

#include "core/formats.hpp"
#include "core/provider.hpp"
#include "core/settings.hpp"
#include "core/text_util.hpp"
#include "db/migrator.hpp"

namespace {

using args_t = std::vector<std::string>;

class usage_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct command {
    std::string usage;
    std::size_t min_args;
    std::function<int(pqxx::connection&, const args_t&)> run;
};

// A secret given as "-" is read from the first line of standard input, which keeps it out of
// the process list and shell history.
std::string secret_argument(const std::string& arg) {
    std::string secret = arg;
    if (arg == "-" && !std::getline(std::cin, secret)) throw usage_error("no secret on standard input");
    if (secret.empty() || secret.size() > 256) throw usage_error("a secret is 1-256 bytes");
    if (!keeper::core::utf8_length(secret) || keeper::core::has_control_characters(secret)) {
        throw usage_error("a secret is UTF-8 text without control characters");
    }
    return secret;
}

bool has_flag(const args_t& args, const std::string& flag) {
    for (const auto& a : args) {
        if (a == flag) return true;
    }
    return false;
}

int cmd_migrate(pqxx::connection& conn, const args_t&) {
    const int applied = keeper::db::migrate(conn, std::cout);
    std::cout << (applied ? "" : "nothing to apply; ") << "schema version " << keeper::db::current_schema_version(conn) << "\n";
    return 0;
}

int cmd_status(pqxx::connection& conn, const args_t&) {
    int pending = 0;
    for (const auto& s : keeper::db::migration_status(conn)) {
        std::cout << (s.applied ? "applied  " : "pending  ") << s.file.version << "_" << s.file.name
                  << (s.applied ? "  " + s.applied_at : "") << "\n";
        pending += s.applied ? 0 : 1;
    }
    return pending ? 3 : 0;  // non-zero tells scripts that migrate is due
}

int cmd_add_login(pqxx::connection& conn, const args_t& a) {
    if (!keeper::core::formats::is_login(a[0])) throw usage_error("a login is 1-64 characters without control characters");
    const auto login = keeper::core::to_lower_utf8(a[0]);
    const auto secret = secret_argument(a[1]);
    pqxx::work tx{conn};
    const auto r = tx.exec_params1(
        "INSERT INTO logins (login, shared_secret) VALUES ($1, $2) "
        "ON CONFLICT (login) DO UPDATE SET shared_secret = EXCLUDED.shared_secret RETURNING id, (xmax = 0)",
        login, secret);
    tx.commit();
    std::cout << "login " << login << (r[1].as<bool>() ? " added" : " updated") << " (id " << r[0].as<long long>() << ")\n";
    return 0;
}

int cmd_add_app(pqxx::connection& conn, const args_t& a) {
    if (!keeper::core::formats::is_app_id(a[0])) throw usage_error("an appId is 1-64 characters without control characters");
    const auto provider = keeper::core::provider_from_name(a[2]);
    if (!provider) throw usage_error("unknown provider '" + a[2] + "' (names as in the Provider enumeration, e.g. Android)");
    const auto app_id = keeper::core::to_lower_utf8(a[0]);
    const auto secret = secret_argument(a[1]);
    const bool enabled = !has_flag(a, "--disabled");
    pqxx::work tx{conn};
    tx.exec_params(
        "INSERT INTO applications (app_id, shared_secret, push_provider, enabled) VALUES ($1, $2, $3, $4) "
        "ON CONFLICT (app_id) DO UPDATE SET shared_secret = EXCLUDED.shared_secret, "
        "push_provider = EXCLUDED.push_provider, enabled = EXCLUDED.enabled",
        app_id, secret, std::string{keeper::core::provider_name(*provider)}, enabled);
    tx.commit();
    std::cout << "application " << app_id << (enabled ? " enabled" : " disabled") << "\n";
    return 0;
}

const std::map<std::string, command>& commands() {
    static const std::map<std::string, command> all{
        {"migrate", {"migrate                       apply pending db/migrations", 0, cmd_migrate}},
        {"status", {"status                        list migrations, applied or pending (exit 3 if any pending)", 0, cmd_status}},
        {"add-login", {"add-login LOGIN SECRET        add a login, or set its secret (SECRET '-' reads stdin)", 2, cmd_add_login}},
        {"add-app", {"add-app APPID SECRET PROVIDER [--disabled]   register or update an application", 3, cmd_add_app}},
    };
    return all;
}

void print_usage(std::ostream& out) {
    out << "usage: keeperctl [--config FILE] COMMAND [ARGS]\n\ncommands:\n";
    for (const auto& [name, c] : commands()) out << "  " << c.usage << "\n";
    out << "\nThe database is the config's database_url (KEEPER_DATABASE_URL overrides it).\n";
}

}  // namespace

int main(int argc, char** argv) {
    args_t args(argv + 1, argv + argc);
    std::string config_path = keeper::core::default_config_path();
    if (args.size() >= 2 && args[0] == "--config") {
        config_path = args[1];
        args.erase(args.begin(), args.begin() + 2);
    }
    if (args.empty() || args[0] == "--help" || args[0] == "-h") {
        print_usage(args.empty() ? std::cerr : std::cout);
        return args.empty() ? 2 : 0;
    }
    const auto it = commands().find(args[0]);
    try {
        if (it == commands().end()) throw usage_error("unknown command '" + args[0] + "'");
        const args_t rest(args.begin() + 1, args.end());
        if (rest.size() < it->second.min_args) throw usage_error("usage: keeperctl " + it->second.usage);
        const auto cfg = keeper::core::load_settings(config_path);
        pqxx::connection conn{cfg.database_url};
        return it->second.run(conn, rest);
    } catch (const usage_error& e) {
        std::cerr << "keeperctl: " << e.what() << "\n";
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "keeperctl: " << e.what() << "\n";
        return 1;
    }
}
