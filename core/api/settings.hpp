#pragma once
// keeper's configuration as values: what the operations, the pool and keeperctl read. Each member
// has its default here; config/ reads the file and the environment into it (docs/configuration.md).
#include <chrono>
#include <cstddef>
#include <string>

namespace keeper::core {

// Who is shown the test form on the ?op= help pages (ASMX shows it to the local machine only).
enum class test_form_access { local, any, off };

// How keeper's log lines are written: logfmt (key=value) or one JSON object a line.
enum class log_format_kind { text, json };

struct settings {
    std::string api_namespace = "http://tempuri.org/";
    std::string public_base_url;  // e.g. https://api.example.com: WSDL addresses; empty: the request's Host
    std::string database_url = "dbname=keeper";               // a libpq connection string (the workers')
    std::string admin_database_url;                           // keeperctl migrate/roles/status; empty: database_url
    std::string provision_database_url;                       // keeperctl add-*/list; empty: admin_database_url
    std::string maintain_database_url;                        // keeperctl maintain; empty: admin_database_url
    std::string secret_key_file = "/etc/keeper/secret.keys";  // keys sealing shared secrets
    std::string listen;                                       // empty: the socket inherited on fd 0
    std::string retry_listen;                                 // empty: systemd's second socket, or none
    int workers = 8;                                          // processes
    int threads = 24;                                         // per worker process: requests served at once
    std::chrono::milliseconds admission_wait{200};            // longest expected wait for a thread before a refusal
    int database_connections = 2;                             // per worker process, shared by its threads
    std::chrono::seconds drain_time{10};
    std::chrono::milliseconds lock_timeout{2000};       // a call's wait for a row lock
    std::chrono::milliseconds statement_timeout{5000};  // a call's statement, start to end
    std::chrono::seconds connect_timeout{3};            // one attempt to reach PostgreSQL
    std::chrono::milliseconds call_budget{10000};       // a call's deadline, from when nginx first saw it
    std::chrono::seconds nginx_read_timeout{30};        // nginx's fastcgi_read_timeout, which the deadline stays under
    std::size_t body_limit = 65536;
    test_form_access test_form = test_form_access::local;
    log_format_kind log_format = log_format_kind::text;
    std::chrono::seconds session_ttl{86400};
    int auth_max_failures = 5;
    std::chrono::seconds auth_failure_window{900};
    // SubscribeAppWithTagAndLocale's throttle, per (application, client) and per client
    // (docs/api-decisions.md, "Sessions and applications").
    int app_auth_max_failures = 20;
    std::chrono::seconds app_auth_failure_window{900};
    int code_max_attempts = 5;
    std::string topup_max_amount = "15000";  // exact decimal, compared as NUMERIC
    std::string card_daily_limit = "50000";  // exact decimal, compared as NUMERIC
    // Data lifecycle (keeperctl maintain).
    int audit_retention_months = 13;
    int topup_retention_months = 61;
    bool retention_detach_only = false;  // detach old partitions for archiving instead of dropping
    int session_linger_days = 30;        // expired sessions kept this long past expiry
    int key_retention_hours = 24;        // Idempotency-Keys kept this long before keeperctl maintain deletes them
    int purge_batch_rows = 5000;

    friend bool operator==(const settings&, const settings&) = default;
};

}  // namespace keeper::core
