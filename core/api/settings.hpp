#pragma once
// keeper's configuration: one file of `key = value` lines, every key with a default, each
// overridable by the environment variable KEEPER_<KEY in upper case>. Unknown keys and bad values
// stop the start with a message naming the key (validated once, never per request).
#include <chrono>
#include <cstddef>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace keeper::core {

// Who is shown the test form on the ?op= help pages (ASMX shows it to the local machine only).
enum class test_form_access { local, any, off };

struct settings {
    std::string api_namespace = "http://tempuri.org/";
    std::string database_url = "dbname=keeper";  // a libpq connection string (the workers')
    std::string admin_database_url;      // keeperctl migrate/roles/status; empty: database_url
    std::string provision_database_url;  // keeperctl add-*/list; empty: admin_database_url
    std::string maintain_database_url;   // keeperctl maintain; empty: admin_database_url
    std::string secret_key_file = "/etc/keeper/secret.keys";  // keys sealing shared secrets
    std::string listen;                           // empty: the socket inherited on fd 0
    int workers = 8;               // processes
    int threads = 24;              // per worker process: FastCGI connections served at once
    int database_connections = 2;  // per worker process, shared by its threads
    std::chrono::seconds drain_time{10};
    std::chrono::milliseconds lock_timeout{2000};       // a call's wait for a row lock
    std::chrono::milliseconds statement_timeout{5000};  // a call's statement, start to end
    std::chrono::seconds connect_timeout{3};            // one attempt to reach PostgreSQL
    std::size_t body_limit = 65536;
    test_form_access test_form = test_form_access::local;
    std::chrono::seconds session_ttl{86400};
    int auth_max_failures = 5;
    std::chrono::seconds auth_failure_window{900};
    int code_max_attempts = 5;
    std::string topup_max_amount = "15000";  // exact decimal, compared as NUMERIC
    std::string card_daily_limit = "50000";  // exact decimal, compared as NUMERIC
    // Data lifecycle (keeperctl maintain).
    int audit_retention_months = 13;
    int topup_retention_months = 61;
    bool retention_detach_only = false;  // detach old partitions for archiving instead of dropping
    int session_linger_days = 30;        // expired sessions kept this long past expiry
    int purge_batch_rows = 5000;
};

// database_url with connect_timeout, TCP keepalives and tcp_user_timeout added (each unless it
// sets it): a dead host costs seconds, not the minutes of a TCP connect or retransmission. Works
// for key=value strings and postgresql:// URIs, with one host or several (docs/scaling.md).
std::string worker_conninfo(const settings& s);

// The key file in use: systemd's credential (LoadCredential=secret.keys:...) when the unit passes
// one, else secret_key_file.
std::string secret_key_path(const settings& s);

// The connection string each keeperctl task uses, after the fallbacks above.
std::string admin_url(const settings& s);
std::string provision_url(const settings& s);
std::string maintain_url(const settings& s);

class config_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct setting_doc {
    std::string key;
    std::string default_value;
    std::string description;
};

// Every key, its default and what it means, in file order (docs and the sample file use it).
const std::vector<setting_doc>& setting_docs();

// Applies file text, then environment overrides (KEEPER_*), to the defaults.
settings parse_settings(const std::string& file_text, const std::map<std::string, std::string>& env);

// KEEPER_CONFIG if set, else /etc/keeper/keeper.conf if it exists, else "" (defaults only).
std::string default_config_path();

// Reads the file at path (empty path: no file) and the process environment.
settings load_settings(const std::string& path);

}  // namespace keeper::core
