#include "config/setting_keys.hpp"

#include <charconv>

#include "core/api/text_util.hpp"

namespace keeper::config {
namespace {

using core::settings;
using core::test_form_access;

long long parse_int(const std::string& key, const std::string& v, long long min, long long max) {
    long long n = 0;
    const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    if (ec != std::errc{} || end != v.data() + v.size() || n < min || n > max) {
        throw config_error("config key '" + key + "': '" + v + "' is not a whole number from " +
                           std::to_string(min) + " to " + std::to_string(max));
    }
    return n;
}

std::string parse_decimal(const std::string& key, const std::string& v) {
    // money in the purse's currency
    if (!core::is_plain_amount(v)) {
        throw config_error("config key '" + key + "': '" + v + "' is not an amount like 15000 or 99.50");
    }
    return v;
}

bool parse_bool(const std::string& key, const std::string& v) {
    if (v == "true") return true;
    if (v == "false") return false;
    throw config_error("config key '" + key + "': '" + v + "' is not true or false");
}

test_form_access parse_test_form(const std::string& v) {
    if (v == "local") return test_form_access::local;
    if (v == "any") return test_form_access::any;
    if (v == "off") return test_form_access::off;
    throw config_error("config key 'test_form': '" + v + "' is not local, any or off");
}

std::string parse_nonempty(const std::string& key, const std::string& v) {
    if (v.empty()) throw config_error("config key '" + key + "' must not be empty");
    return v;
}

}  // namespace

const std::vector<setting_def>& setting_definitions() {
    static const std::vector<setting_def> defs{
        {{"api_namespace", "http://tempuri.org/", "XML namespace of the API (WSDL targetNamespace, SOAPAction prefix)."},
         [](settings& s, const std::string& v) { s.api_namespace = parse_nonempty("api_namespace", v); }},
        {{"database_url", "dbname=keeper", "libpq connection string of the PostgreSQL database."},
         [](settings& s, const std::string& v) { s.database_url = parse_nonempty("database_url", v); }},
        {{"admin_database_url", "",
          "libpq connection string for keeperctl migrate, roles and status: the schema owner. Empty: database_url."},
         [](settings& s, const std::string& v) { s.admin_database_url = v; }},
        {{"provision_database_url", "",
          "libpq connection string for keeperctl add-* and list (role keeper_provision). Empty: admin_database_url."},
         [](settings& s, const std::string& v) { s.provision_database_url = v; }},
        {{"maintain_database_url", "",
          "libpq connection string for keeperctl maintain (role keeper_maintain). Empty: admin_database_url."},
         [](settings& s, const std::string& v) { s.maintain_database_url = v; }},
        {{"secret_key_file", "/etc/keeper/secret.keys",
          "File of the keys that seal login and application secrets in the database (AES-256-GCM): lines "
          "'<key id> <base64 of 32 bytes>', the first one current (keeperctl new-key). Under systemd the unit "
          "passes it as the credential secret.keys instead. Without a readable, right key the pool does not start."},
         [](settings& s, const std::string& v) { s.secret_key_file = parse_nonempty("secret_key_file", v); }},
        {{"listen", "", "FastCGI socket: a unix socket path or 127.0.0.1:PORT; empty = systemd's first socket (LISTEN_FDS), or fd 0."},
         [](settings& s, const std::string& v) { s.listen = v; }},
        {{"retry_listen", "",
          "FastCGI socket nginx sends a request to a second time when the worker that had it died with it "
          "(the upstream's backup server): a unix socket path or 127.0.0.1:PORT; a write that comes there "
          "first settles that attempt. Empty = systemd's second socket (LISTEN_FDS=2), or none."},
         [](settings& s, const std::string& v) { s.retry_listen = v; }},
        {{"workers", "8",
          "Worker processes. Each serves `threads` FastCGI connections at once; more than one process "
          "keeps the pool serving while one is replaced. See docs/performance.md for the sizing rule."},
         [](settings& s, const std::string& v) { s.workers = static_cast<int>(parse_int("workers", v, 1, 256)); }},
        {{"threads", "24",
          "Threads per worker process, each serving one FastCGI connection at a time. workers x threads "
          "must exceed what nginx keeps open (worker_processes x upstream keepalive), or connections "
          "beyond it wait."},
         [](settings& s, const std::string& v) { s.threads = static_cast<int>(parse_int("threads", v, 1, 1024)); }},
        {{"database_connections", "2",
          "PostgreSQL connections per worker process, shared by its threads (a call holds one for its "
          "transaction). workers x database_connections per host counts against max_connections."},
         [](settings& s, const std::string& v) {
             s.database_connections = static_cast<int>(parse_int("database_connections", v, 1, 256));
         }},
        {{"drain_seconds", "10",
          "On stop or reload, how long a worker keeps serving connections nginx holds open before it "
          "closes idle ones. Above nginx's upstream keepalive_timeout and keepalive_time, so nginx "
          "closes them first and no request races a close."},
         [](settings& s, const std::string& v) { s.drain_time = std::chrono::seconds{parse_int("drain_seconds", v, 0, 3600)}; }},
        {{"lock_timeout_ms", "2000",
          "Longest a call waits for a row lock another call holds (PostgreSQL lock_timeout). Past it the call "
          "is a server fault and changes nothing; the worker lives on."},
         [](settings& s, const std::string& v) {
             s.lock_timeout = std::chrono::milliseconds{parse_int("lock_timeout_ms", v, 1, 600000)};
         }},
        {{"statement_timeout_ms", "5000",
          "Longest one database statement of a call may run (PostgreSQL statement_timeout); then as above."},
         [](settings& s, const std::string& v) {
             s.statement_timeout = std::chrono::milliseconds{parse_int("statement_timeout_ms", v, 1, 600000)};
         }},
        {{"connect_timeout_seconds", "3",
          "Longest one attempt to connect to PostgreSQL may take (libpq connect_timeout, added to database_url "
          "unless it sets one). With several hosts in database_url each is tried in turn."},
         [](settings& s, const std::string& v) {
             s.connect_timeout = std::chrono::seconds{parse_int("connect_timeout_seconds", v, 1, 600)};
         }},
        {{"call_budget_ms", "10000",
          "A call's deadline, from its arrival at a worker: every wait it makes ends there (a free connection, each "
          "statement, a commit's wait for the synchronous standby, waiting through a failover, settling a call whose "
          "connection broke; docs/design.md, \"One deadline per call\"). Past it a write is answered \"not applied\" "
          "when that is known, else \"outcome unknown\". At least 2 s below nginx_read_timeout_seconds."},
         [](settings& s, const std::string& v) {
             s.call_budget = std::chrono::milliseconds{parse_int("call_budget_ms", v, 100, 600000)};
         }},
        {{"nginx_read_timeout_seconds", "30",
          "nginx's fastcgi_read_timeout for keeper's locations (nginx/keeper-locations.conf): set both together. "
          "keeper refuses to start when call_budget_ms leaves less than 2 s of it, so that keeper, not nginx's "
          "timeout, answers every call."},
         [](settings& s, const std::string& v) {
             s.nginx_read_timeout = std::chrono::seconds{parse_int("nginx_read_timeout_seconds", v, 1, 3600)};
         }},
        {{"body_limit", "65536", "Largest request body in bytes; larger gets 413 before any parsing. nginx's client_max_body_size must match."},
         [](settings& s, const std::string& v) { s.body_limit = static_cast<std::size_t>(parse_int("body_limit", v, 1024, 16 << 20)); }},
        {{"test_form", "local",
          "Who sees the test form on the ?op= help pages (a form that calls the operation over HTTP POST): local "
          "(requests from loopback, as ASMX), any, or off. The operations themselves answer everyone either way."},
         [](settings& s, const std::string& v) { s.test_form = parse_test_form(v); }},
        {{"session_ttl_seconds", "86400", "How long a session stays valid after Authenticate."},
         [](settings& s, const std::string& v) { s.session_ttl = std::chrono::seconds{parse_int("session_ttl_seconds", v, 1, 366LL * 86400)}; }},
        {{"auth_max_failures", "5", "Failed Authenticate calls per login within the window before it answers 11."},
         [](settings& s, const std::string& v) { s.auth_max_failures = static_cast<int>(parse_int("auth_max_failures", v, 1, 1000)); }},
        {{"auth_failure_window_seconds", "900", "The window for auth_max_failures."},
         [](settings& s, const std::string& v) { s.auth_failure_window = std::chrono::seconds{parse_int("auth_failure_window_seconds", v, 1, 86400)}; }},
        {{"code_max_attempts", "5", "Wrong protection/confirmation codes that lock a transfer or task for good."},
         [](settings& s, const std::string& v) { s.code_max_attempts = static_cast<int>(parse_int("code_max_attempts", v, 1, 100)); }},
        {{"topup_max_amount", "15000", "Largest amount of one TopupPurseFromAtmCard."},
         [](settings& s, const std::string& v) { s.topup_max_amount = parse_decimal("topup_max_amount", v); }},
        {{"card_daily_limit", "50000", "Default limit of a card's top-ups over 24 hours (a card may have its own)."},
         [](settings& s, const std::string& v) { s.card_daily_limit = parse_decimal("card_daily_limit", v); }},
        {{"audit_retention_months", "13",
          "Months of audit_log kept: keeperctl maintain drops (or detaches) monthly partitions wholly older "
          "than this. 13 keeps a full year plus the month being reviewed (PCI DSS asks for 12)."},
         [](settings& s, const std::string& v) {
             s.audit_retention_months = static_cast<int>(parse_int("audit_retention_months", v, 1, 1200));
         }},
        {{"topup_retention_months", "61",
          "Months of topups kept, as above. 61: five years of payment records (the usual anti-money-"
          "laundering minimum) plus the current month. Never below 1: the 24-hour limit reads them."},
         [](settings& s, const std::string& v) {
             s.topup_retention_months = static_cast<int>(parse_int("topup_retention_months", v, 1, 1200));
         }},
        {{"retention_detach_only", "false",
          "true: partitions past retention are detached and left as plain tables for archiving (pg_dump, "
          "then DROP), not dropped."},
         [](settings& s, const std::string& v) { s.retention_detach_only = parse_bool("retention_detach_only", v); }},
        {{"session_linger_days", "30",
          "Days an expired session is kept (it answers 3, 'expired', rather than 2, 'unknown', meanwhile) "
          "before keeperctl maintain deletes it."},
         [](settings& s, const std::string& v) {
             s.session_linger_days = static_cast<int>(parse_int("session_linger_days", v, 0, 3650));
         }},
        {{"key_retention_hours", "24",
          "Hours an Idempotency-Key is kept: a repeat within them answers the first call's result "
          "(docs/api-decisions.md, \"Idempotency-Key\"). keeperctl maintain deletes older keys. At least 24."},
         [](settings& s, const std::string& v) {
             s.key_retention_hours = static_cast<int>(parse_int("key_retention_hours", v, 24, 8760));
         }},
        {{"purge_batch_rows", "5000",
          "Rows keeperctl maintain deletes per transaction when purging sessions and auth_failures: short "
          "transactions, no long locks on the hot tables."},
         [](settings& s, const std::string& v) { s.purge_batch_rows = static_cast<int>(parse_int("purge_batch_rows", v, 1, 1000000)); }},
    };
    return defs;
}

}  // namespace keeper::config
