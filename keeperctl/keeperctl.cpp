// keeperctl: schema migrations and provisioning of what other parts of the payment system would
// create. Talks to the database named by the same configuration as the workers.
#include <charconv>
#include <functional>
#include <iostream>
#include <map>
#include <pqxx/pqxx>
#include <set>
#include <string>
#include <vector>

#include "core/api/text_util.hpp"
#include "core/pages/api_reference.hpp"
#include "core/pages/nginx_errors.hpp"
#include "core/pages/openapi_writer.hpp"
#include "config/connection_strings.hpp"
#include "config/settings_file.hpp"
#include "core/api/settings.hpp"
#include "keeperctl/maintenance.hpp"
#include "db/schema/definitions.hpp"
#include "db/schema/migrator.hpp"
#include "keeperctl/provisioning.hpp"
#include "db/schema/roles.hpp"
#include "db/secrets/secret_rotation.hpp"

namespace {

using keeper::db::provisioning_error;

// Positional arguments, --flags and --options with a value.
struct arguments {
    std::vector<std::string> positional;
    std::set<std::string> flags;
    std::map<std::string, std::string> options;

    const std::string& at(std::size_t i) const { return positional.at(i); }
    bool flag(const std::string& name) const { return flags.count(name) > 0; }
    std::optional<std::string> option(const std::string& name) const {
        const auto it = options.find(name);
        return it == options.end() ? std::nullopt : std::optional{it->second};
    }
};

const std::set<std::string> valued_options{"--daily-limit", "--expires-in", "--balance", "--metrics-file"};

arguments parse_arguments(const std::vector<std::string>& raw) {
    arguments out;
    for (std::size_t i = 0; i < raw.size(); ++i) {
        if (raw[i].rfind("--", 0) != 0) {
            out.positional.push_back(raw[i]);
        } else if (valued_options.count(raw[i])) {
            if (i + 1 >= raw.size()) throw provisioning_error(raw[i] + " needs a value");
            const auto& name = raw[i];
            out.options[name] = raw[i + 1];
            ++i;
        } else {
            out.flags.insert(raw[i]);
        }
    }
    return out;
}

std::int64_t number(const std::string& text, const char* what) {
    std::int64_t n = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (ec != std::errc{} || end != text.data() + text.size())
        throw provisioning_error(std::string{what} + " must be a whole number");
    return n;
}

std::int32_t number32(const std::string& text, const char* what) {
    const auto n = number(text, what);
    if (n < INT32_MIN || n > INT32_MAX) throw provisioning_error(std::string{what} + " is out of range");
    return static_cast<std::int32_t>(n);
}

// A secret or code given as "-" is read from the first line of standard input, which keeps it
// out of the process list and shell history.
std::string secret_value(const std::string& arg) {
    if (arg != "-") {
        std::cerr << "keeperctl: warning: a secret on the command line is visible to other local users (ps, /proc) "
                     "and stays in shell history; give '-' and write it to standard input\n";
        return arg;
    }
    std::string line;
    if (!std::getline(std::cin, line)) throw provisioning_error("nothing on standard input");
    return line;
}

// A login's or application's shared secret: at least 16 characters. The authHash clients send is
// an MD5 of it lower-cased (the contract's), which a short secret does not survive offline.
constexpr std::size_t min_secret_length = 16;

std::string shared_secret(const std::string& arg) {
    auto secret = secret_value(arg);
    if (secret.size() < min_secret_length) {
        throw provisioning_error("a shared secret is at least " + std::to_string(min_secret_length) +
                                 " characters (the authHash is an MD5 of it lower-cased); a random one: "
                                 "head -c 24 /dev/urandom | base64");
    }
    return secret;
}

keeper::db::expiry expiry_of(const arguments& a) {
    const auto e = a.option("--expires-in");
    return {e ? number(*e, "--expires-in") : 3600};
}

// Which configured connection a command uses: the schema owner's, provisioning's or maintenance's.
using url_of = std::string (*)(const keeper::core::settings&);

struct command {
    std::string usage;
    std::size_t positional;
    std::function<int(pqxx::connection&, const arguments&, const keeper::core::settings&)> run;
    url_of url = keeper::config::provision_url;
};

int report(const std::string& line) {
    std::cout << line << "\n";
    return 0;
}

int cmd_migrate(pqxx::connection& conn, const arguments&, const keeper::core::settings&) {
    const int applied = keeper::db::migrate(conn, std::cout);
    std::cout << (applied ? "" : "nothing to apply; ") << "schema version " << keeper::db::current_schema_version(conn)
              << "\n";
    return 0;
}

int cmd_status(pqxx::connection& conn, const arguments&, const keeper::core::settings&) {
    int due = 0;
    for (const auto& s : keeper::db::migration_status(conn)) {
        std::cout << (s.applied ? "applied  " : "pending  ") << s.file.version << "_" << s.file.name
                  << (s.applied ? "  " + s.applied_at : "")
                  << (s.earlier_text ? "  (earlier text; migrate records this one)" : "") << "\n";
        due += s.applied && !s.earlier_text ? 0 : 1;
    }
    for (const auto& d : keeper::db::definition_status(conn)) {
        const auto state = keeper::db::to_string(d.state);
        std::cout << state << std::string(9 - std::string_view{state}.size(), ' ') << d.name
                  << (d.applied_at.empty() ? "" : "  " + d.applied_at) << "\n";
        due += d.state == keeper::db::definition_state::changed || d.state == keeper::db::definition_state::pending ? 1
                                                                                                                    : 0;
    }
    return due ? 3 : 0;  // non-zero tells scripts that migrate is due
}

int cmd_roles(pqxx::connection& conn, const arguments& a, const keeper::core::settings&) {
    if (a.flag("--print")) {
        for (const auto& statement : keeper::db::roles_sql(conn)) std::cout << statement << ";\n";
        return 0;
    }
    keeper::db::apply_roles(conn, std::cout);
    return 0;
}

// The key file of the configuration, for the commands that seal secrets.
keeper::db::secret_keyring keys_of(const keeper::core::settings& cfg) {
    const auto path = keeper::config::secret_key_path(cfg);
    try {
        return keeper::db::secret_keyring::load(path);
    } catch (const keeper::db::key_error& e) {
        throw provisioning_error(std::string{"secret_key_file: "} + e.what());
    }
}

int cmd_rotate_key(pqxx::connection& conn, const arguments&, const keeper::core::settings& cfg) {
    keeper::db::rotate_secrets(conn, keys_of(cfg), cfg.purge_batch_rows, std::cout);
    return 0;
}

int cmd_forget_key(pqxx::connection& conn, const arguments&, const keeper::core::settings& cfg) {
    keeper::db::forget_lost_keys(conn, keys_of(cfg), std::cout);
    return 0;
}

// maintain, and with --metrics-file how it went (maintain_metrics.hpp).
int cmd_maintain(pqxx::connection& conn, const arguments& a, const keeper::core::settings& cfg) {
    keeper::db::maintain_outcome outcome;
    const int rc = keeper::db::maintain(conn, cfg, std::cout, &outcome);
    if (const auto file = a.option("--metrics-file")) keeper::db::write_maintain_metrics(*file, outcome);
    return rc;
}

int cmd_list(pqxx::connection& conn, const arguments& a, const keeper::core::settings&) {
    for (const auto& line : keeper::db::list(conn, a.at(0))) std::cout << line << "\n";
    return 0;
}

const std::map<std::string, command>& commands() {
    namespace p = keeper::db;
    namespace config = keeper::config;
    static const std::map<std::string, command> all{
        {"migrate",
         {"migrate                                  apply pending db/migrations, then changed db/functions", 0,
          cmd_migrate, config::admin_url}},
        {"status",
         {"status                                   list migrations and functions (exit 3 if migrate is due)", 0,
          cmd_status, config::admin_url}},
        {"roles",
         {"roles [--print]                          create the worker, maintain and provision roles and set their "
          "grants\n"
          "                                           (--print: only print the SQL, for a DBA)",
          0, cmd_roles, config::admin_url}},
        {"rotate-key",
         {"rotate-key                               seal every secret not sealed with the key file's first key with it",
          0, cmd_rotate_key, config::admin_url}},
        {"forget-key",
         {"forget-key                               after a lost key file: forget the keys the database lists and the\n"
          "                                           key file lacks (refused, naming them, while a secret is sealed "
          "with one)",
          0, cmd_forget_key, config::admin_url}},
        {"maintain",
         {"maintain [--metrics-file FILE]           partitions ahead, retention, purges of old sessions, auth "
          "failures,\n"
          "                                           recent top-ups and Idempotency-Keys (FILE: how the run went,\n"
          "                                           for node_exporter's textfile collector)",
          0, cmd_maintain, config::maintain_url}},
        {"add-login",
         {"add-login LOGIN SECRET                   add a login, or set its secret", 2,
          [](auto& c, const arguments& a, const auto& cfg) {
              const auto keys = keys_of(cfg);
              return report(p::add_login(c, a.at(0), shared_secret(a.at(1)), &keys));
          }}},
        {"add-app",
         {"add-app APPID SECRET PROVIDER [--disabled]   register or update an application", 3,
          [](auto& c, const arguments& a, const auto& cfg) {
              const auto keys = keys_of(cfg);
              return report(p::add_app(c, a.at(0), shared_secret(a.at(1)), a.at(2), !a.flag("--disabled"), &keys));
          }}},
        {"add-purse",
         {"add-purse LOGIN PURSE [--balance AMOUNT]  add a purse (e.g. Z123456789012)", 2,
          [](auto& c, const arguments& a, const auto&) {
              return report(p::add_purse(c, a.at(0), a.at(1), a.option("--balance").value_or("0")));
          }}},
        {"add-card",
         {"add-card LOGIN CARD_ID [--daily-limit AMOUNT] [--blocked]", 2,
          [](auto& c, const arguments& a, const auto&) {
              return report(
                  p::add_card(c, a.at(0), number(a.at(1), "CARD_ID"), a.option("--daily-limit"), a.flag("--blocked")));
          }}},
        {"add-transfer",
         {"add-transfer LOGIN TRAN_ID AMOUNT CODE [--expires-in SECONDS]   a pending protected transfer", 4,
          [](auto& c, const arguments& a, const auto&) {
              return report(p::add_transfer(c, a.at(0), number(a.at(1), "TRAN_ID"), a.at(2), secret_value(a.at(3)),
                                            expiry_of(a)));
          }}},
        {"add-profile",
         {"add-profile LOGIN PROFILE_ID NAME        a telepay profile", 3,
          [](auto& c, const arguments& a, const auto&) {
              return report(p::add_profile(c, a.at(0), number32(a.at(1), "PROFILE_ID"), a.at(2)));
          }}},
        {"add-task",
         {"add-task PROFILE_ID TASK_ID CODE [--expires-in SECONDS]   a pending scheduler task", 3,
          [](auto& c, const arguments& a, const auto&) {
              return report(p::add_task(c, number32(a.at(0), "PROFILE_ID"), number32(a.at(1), "TASK_ID"),
                                        secret_value(a.at(2)), expiry_of(a)));
          }}},
        {"add-sms",
         {"add-sms LOGIN SMS_ID                     a push SMS awaiting delivery", 2,
          [](auto& c, const arguments& a, const auto&) {
              return report(p::add_sms(c, a.at(0), number32(a.at(1), "SMS_ID")));
          }}},
        {"list",
         {"list KIND                                KIND: logins apps purses cards transfers profiles tasks sms", 1,
          cmd_list}},
    };
    return all;
}

void print_usage(std::ostream& out) {
    out << "usage: keeperctl [--config FILE] COMMAND [ARGS]\n\ncommands:\n";
    for (const auto& [name, c] : commands()) out << "  " << c.usage << "\n";
    out << "  api-reference                            print docs/api.md (no database needed)\n";
    out << "  nginx-errors                             print nginx/keeper-errors.conf, nginx's pages in keeper's "
           "words (no\n"
           "                                           database)\n";
    out << "  openapi                                  print docs/openapi.json, the JSON calls as OpenAPI 3.1 (no "
           "database)\n";
    out << "  new-key [ID]                             print a new key line '<ID> <base64>' for the key file, with a "
           "new\n"
           "                                           id unless one is given (no database)\n";
    out << "\nA SECRET or CODE given as '-' is read from standard input; one on the command line works, with a\n"
           "warning, since other local users can read it. Each command connects as its own\n"
           "role: migrate, status, roles, rotate-key and forget-key with admin_database_url, maintain with\n"
           "maintain_database_url, add-* and list with provision_database_url; an empty one of the last\n"
           "two means admin_database_url, and an empty admin_database_url database_url. KEEPER_<KEY>\n"
           "overrides a key. Config: --config, $KEEPER_CONFIG or /etc/keeper/keeper.conf; the three admin\n"
           "strings also from admin.conf beside it ($KEEPER_ADMIN_CONFIG), which only keeper-admin reads.\n";
}

// A maintain that failed before it ran (the database refused the connection) is a failed run too.
void record_failed_maintain(const std::vector<std::string>& args) {
    if (args.empty() || args[0] != "maintain") return;
    try {
        const auto file = parse_arguments({args.begin() + 1, args.end()}).option("--metrics-file");
        if (file) keeper::db::write_maintain_metrics(*file, {});
    } catch (const std::exception& e) {
        std::cerr << "keeperctl: " << e.what() << "\n";
    }
}

// The server answered and refused who we are (a password, peer or ident check, an unknown
// role): libpq reports it as a failed connection, but it is no outage to wait out.
bool refused_credentials(const pqxx::broken_connection& e) {
    const std::string what = e.what();
    return what.find("authentication failed") != std::string::npos ||
           (what.find("role \"") != std::string::npos && what.find("does not exist") != std::string::npos);
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    std::string config_path = keeper::config::default_config_path();
    if (args.size() >= 2 && args[0] == "--config") {
        config_path = args[1];
        args.erase(args.begin(), args.begin() + 2);
    }
    if (args.empty() || args[0] == "--help" || args[0] == "-h") {
        print_usage(args.empty() ? std::cerr : std::cout);
        return args.empty() ? 2 : 0;
    }
    if (args[0] == "api-reference") {
        std::cout << keeper::core::write_api_reference();
        return 0;
    }
    if (args[0] == "nginx-errors") {
        std::cout << keeper::core::write_nginx_errors();
        return 0;
    }
    if (args[0] == "openapi") {
        std::cout << keeper::core::write_openapi();
        return 0;
    }
    if (args[0] == "new-key" && args.size() <= 2) {
        try {
            const auto id = args.size() == 2 ? args[1] : keeper::db::secret_keyring::new_key_id();
            std::cout << keeper::db::secret_keyring::new_key_line(id) << "\n";
            return 0;
        } catch (const keeper::db::key_error& e) {
            std::cerr << "keeperctl: " << e.what() << "\n";
            return 2;
        }
    }
    try {
        const auto it = commands().find(args[0]);
        if (it == commands().end()) throw provisioning_error("unknown command '" + args[0] + "' (keeperctl --help)");
        const auto parsed = parse_arguments({args.begin() + 1, args.end()});
        if (parsed.positional.size() != it->second.positional)
            throw provisioning_error("usage: keeperctl " + it->second.usage);
        const auto cfg = keeper::config::load_settings(config_path, keeper::config::admin_config_path(config_path));
        pqxx::connection conn{it->second.url(cfg)};
        return it->second.run(conn, parsed, cfg);
    } catch (const provisioning_error& e) {
        std::cerr << "keeperctl: " << e.what() << "\n";
        return 2;
    } catch (const pqxx::broken_connection& e) {
        if (refused_credentials(e)) {
            // The server is there and said no: trying again changes nothing.
            std::cerr << "keeperctl: the database refused the connection: " << keeper::core::first_line(e.what())
                      << "\n"
                      << "keeperctl: with peer authentication run it as the system user mapped to the role, "
                         "as docs/operations.md does: runuser -u keeper-admin -- keeperctl ...\n";
            record_failed_maintain(args);
            return 1;
        }
        // The database is not there (yet): worth trying again later, unlike any other failure
        // (keeper-migrate.service restarts on this status alone). 75 is sysexits' EX_TEMPFAIL.
        std::cerr << "keeperctl: cannot reach the database: " << e.what() << "\n";
        record_failed_maintain(args);
        return 75;
    } catch (const std::exception& e) {
        std::cerr << "keeperctl: " << e.what() << "\n";
        record_failed_maintain(args);
        return 1;
    }
}
