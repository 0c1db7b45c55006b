#include "config/setting_keys.hpp"

#include <charconv>
#include <chrono>

#include "core/api/text_util.hpp"

namespace keeper::config {
namespace {

using core::log_format_kind;
using core::settings;
using core::test_form_access;

// How a key's text is read: the rule a row names (below), applied to its member's type.
struct any_text {};
struct nonempty_text {};
struct amount {};  // money in the purse's currency, exact decimal text
struct origin {};  // scheme://host[:port], nothing after it, or empty
struct boolean {};
struct one_of_test_form {};
struct one_of_log_format {};
struct whole {
    long long min, max;
};

[[noreturn]] void refuse(const std::string& key, const std::string& v, const std::string& expected) {
    throw config_error("config key '" + key + "': '" + v + "' " + expected);
}

void read(std::string& out, const std::string&, const std::string& v, any_text) { out = v; }
void read(std::string& out, const std::string& key, const std::string& v, nonempty_text) {
    if (v.empty()) throw config_error("config key '" + key + "' must not be empty");
    out = v;
}
void read(std::string& out, const std::string& key, const std::string& v, amount) {
    if (!core::is_plain_amount(v)) refuse(key, v, "is not an amount like 15000 or 99.50");
    out = v;
}
void read(std::string& out, const std::string& key, const std::string& v, origin) {
    const bool scheme = v.starts_with("https://") || v.starts_with("http://");
    const auto host = v.substr(v.find("://") == std::string::npos ? 0 : v.find("://") + 3);
    if (!v.empty() && (!scheme || host.empty() || host.find_first_of("/?#@ \t") != std::string::npos)) {
        refuse(key, v, "is not an origin like https://api.example.com (a scheme and a host, nothing after them)");
    }
    out = v;
}
void read(bool& out, const std::string& key, const std::string& v, boolean) {
    if (v != "true" && v != "false") refuse(key, v, "is not true or false");
    out = v == "true";
}
void read(test_form_access& out, const std::string& key, const std::string& v, one_of_test_form) {
    if (v == "local") out = test_form_access::local;
    else if (v == "any") out = test_form_access::any;
    else if (v == "off") out = test_form_access::off;
    else refuse(key, v, "is not local, any or off");
}
void read(log_format_kind& out, const std::string& key, const std::string& v, one_of_log_format) {
    if (v == "text") out = log_format_kind::text;
    else if (v == "json") out = log_format_kind::json;
    else refuse(key, v, "is not text or json");
}
long long whole_number(const std::string& key, const std::string& v, whole range) {
    long long n = 0;
    const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    if (ec != std::errc{} || end != v.data() + v.size() || n < range.min || n > range.max) {
        refuse(key, v, "is not a whole number from " + std::to_string(range.min) + " to " + std::to_string(range.max));
    }
    return n;
}
// A number a key holds: an integer or a floating-point member.
template <typename N>
concept number = std::is_arithmetic_v<N>;

template <number N>
void read(N& out, const std::string& key, const std::string& v, whole range) {
    out = static_cast<N>(whole_number(key, v, range));
}
template <typename Rep, typename Period>
void read(std::chrono::duration<Rep, Period>& out, const std::string& key, const std::string& v, whole range) {
    out = std::chrono::duration<Rep, Period>{whole_number(key, v, range)};
}

// A value as the file writes it: how a row's default is shown, from core::settings's own.
std::string shown(const std::string& v) { return v; }
std::string shown(bool v) { return v ? "true" : "false"; }
std::string shown(test_form_access v) {
    return v == test_form_access::local ? "local" : v == test_form_access::any ? "any" : "off";
}
std::string shown(log_format_kind v) { return v == log_format_kind::json ? "json" : "text"; }
template <number N>
std::string shown(N v) {
    return std::to_string(v);
}
template <typename Rep, typename Period>
std::string shown(std::chrono::duration<Rep, Period> v) {
    return std::to_string(v.count());
}

// One row: the key, the member it sets, how its text is read, and what it means. Its default is
// the member's in core::settings, written once there.
template <typename T, typename Rule>
setting_def key(const std::string& name, T settings::*member, Rule rule, const std::string& description) {
    return {{name, shown(settings{}.*member), description},
            [name, member, rule](settings& s, const std::string& v) { read(s.*member, name, v, rule); }};
}

}  // namespace

const std::vector<setting_def>& setting_definitions() {
    static const std::vector<setting_def> defs{
        key("api_namespace", &settings::api_namespace, nonempty_text{},
            "XML namespace of the API (WSDL targetNamespace, SOAPAction prefix)."),
        key("public_base_url", &settings::public_base_url, origin{},
            "The origin clients reach the API at, e.g. https://api.example.com: the WSDL's soap:address, the disco "
            "document and the help pages name it. Empty: the request's Host header, which any client can set, so a "
            "WSDL fetched with a forged Host points elsewhere; set it wherever clients generate proxies from the "
            "WSDL."),
        key("database_url", &settings::database_url, nonempty_text{},
            "libpq connection string of the PostgreSQL database."),
        key("admin_database_url", &settings::admin_database_url, any_text{},
            "libpq connection string for keeperctl migrate, roles and status: the schema owner. Empty: database_url."),
        key("provision_database_url", &settings::provision_database_url, any_text{},
            "libpq connection string for keeperctl add-* and list (role keeper_provision). Empty: admin_database_url."),
        key("maintain_database_url", &settings::maintain_database_url, any_text{},
            "libpq connection string for keeperctl maintain (role keeper_maintain). Empty: admin_database_url."),
        key("secret_key_file", &settings::secret_key_file, nonempty_text{},
            "File of the keys that seal login and application secrets in the database (AES-256-GCM): lines "
            "'<key id> <base64 of 32 bytes>', the first one current (keeperctl new-key). Under systemd the unit "
            "passes it as the credential secret.keys instead. Without a readable, right key the pool does not start."),
        key("listen", &settings::listen, any_text{},
            "FastCGI socket: a unix socket path or 127.0.0.1:PORT; empty = systemd's first socket (LISTEN_FDS), or fd "
            "0."),
        key("retry_listen", &settings::retry_listen, any_text{},
            "FastCGI socket nginx sends a request to a second time when the worker that had it died with it "
            "(the upstream's backup server): a unix socket path or 127.0.0.1:PORT; a write that comes there "
            "first settles that attempt. Empty = systemd's second socket (LISTEN_FDS=2), or none."),
        key("workers", &settings::workers, whole{1, 256},
            "Worker processes. Each serves `threads` FastCGI connections at once; more than one process "
            "keeps the pool serving while one is replaced. See docs/performance.md for the sizing rule."),
        key("threads", &settings::threads, whole{1, 1024},
            "Threads per worker process, each serving one request at a time. A worker holds every "
            "connection nginx opens to it, idle ones included; requests wait for a thread in its queue."),
        key("admission_wait_ms", &settings::admission_wait, whole{1, 600000},
            "Longest a request may be expected to wait for a worker's thread. One that would wait longer "
            "is refused on arrival: 503 \"not applied\" with Retry-After, nothing started "
            "(docs/design.md, \"Overload\")."),
        key("database_connections", &settings::database_connections, whole{1, 256},
            "PostgreSQL connections per worker process, shared by its threads (a call holds one for its "
            "transaction). workers x database_connections per host counts against max_connections."),
        key("drain_seconds", &settings::drain_time, whole{0, 3600},
            "On stop or reload, how long a worker keeps serving connections nginx holds open before it "
            "closes idle ones. Above nginx's upstream keepalive_timeout and keepalive_time, so nginx "
            "closes them first and no request races a close."),
        key("lock_timeout_ms", &settings::lock_timeout, whole{1, 600000},
            "Longest a call waits for a row lock another call holds (PostgreSQL lock_timeout). Past it the call "
            "is a server fault and changes nothing; the worker lives on."),
        key("statement_timeout_ms", &settings::statement_timeout, whole{1, 600000},
            "Longest one database statement of a call may run (PostgreSQL statement_timeout); then as above."),
        key("connect_timeout_seconds", &settings::connect_timeout, whole{1, 600},
            "Longest one attempt to connect to PostgreSQL may take (libpq connect_timeout, added to database_url "
            "unless it sets one). With several hosts in database_url each is tried in turn."),
        key("call_budget_ms", &settings::call_budget, whole{100, 600000},
            "A call's deadline, from when nginx first saw it (its request id's time): every wait it makes ends there "
            "(a free worker, "
            "a free connection, each statement, a commit's wait for the synchronous standby, waiting through a "
            "failover, settling a call whose "
            "connection broke; docs/design.md, \"One deadline per call\"). Past it a write is answered \"not applied\" "
            "when that is known, else \"outcome unknown\". At least 2 s below nginx_read_timeout_seconds."),
        key("nginx_read_timeout_seconds", &settings::nginx_read_timeout, whole{1, 3600},
            "nginx's fastcgi_read_timeout for keeper's locations (nginx/keeper-locations.conf): set both together. "
            "keeper refuses to start when call_budget_ms leaves less than 2 s of it, so that keeper, not nginx's "
            "timeout, answers every call."),
        key("body_limit", &settings::body_limit, whole{1024, 16 << 20},
            "Largest request body in bytes; larger gets 413 before any parsing. nginx's client_max_body_size must "
            "match."),
        key("test_form", &settings::test_form, one_of_test_form{},
            "Who sees the test form on the ?op= help pages (a form that calls the operation over HTTP POST): local "
            "(requests from loopback, as ASMX), any, or off. The operations themselves answer everyone either way."),
        key("log_format", &settings::log_format, one_of_log_format{},
            "How keeper writes its log lines: text (logfmt, key=value) or json (one object a line, the same "
            "fields), for Loki, Elasticsearch or Vector to ingest without a parser of their own."),
        key("session_ttl_seconds", &settings::session_ttl, whole{1, 366LL * 86400},
            "How long a session stays valid after Authenticate."),
        key("auth_max_failures", &settings::auth_max_failures, whole{1, 1000},
            "Failed Authenticate calls per login within the window before it answers 11."),
        key("auth_failure_window_seconds", &settings::auth_failure_window, whole{1, 86400},
            "The window for auth_max_failures."),
        key("app_auth_max_failures", &settings::app_auth_max_failures, whole{1, 100000},
            "Failed SubscribeAppWithTagAndLocale calls for one application and userId within the window before it "
            "answers 11 for that userId of that application."),
        key("app_auth_failure_window_seconds", &settings::app_auth_failure_window, whole{1, 86400},
            "The window for app_auth_max_failures."),
        key("code_max_attempts", &settings::code_max_attempts, whole{1, 100},
            "Wrong protection/confirmation codes that lock a transfer or task for good."),
        key("topup_max_amount", &settings::topup_max_amount, amount{}, "Largest amount of one TopupPurseFromAtmCard."),
        key("card_daily_limit", &settings::card_daily_limit, amount{},
            "Default limit of a card's top-ups over 24 hours (a card may have its own)."),
        key("audit_retention_months", &settings::audit_retention_months, whole{1, 1200},
            "Months of audit_log kept: keeperctl maintain drops (or detaches) monthly partitions wholly older "
            "than this. 13 keeps a full year plus the month being reviewed (PCI DSS asks for 12)."),
        key("topup_retention_months", &settings::topup_retention_months, whole{1, 1200},
            "Months of topups kept, as above. 61: five years of payment records (the usual anti-money-"
            "laundering minimum) plus the current month. Never below 1: the 24-hour limit reads them."),
        key("retention_detach_only", &settings::retention_detach_only, boolean{},
            "true: partitions past retention are detached and left as plain tables for archiving (pg_dump, "
            "then DROP), not dropped."),
        key("session_linger_days", &settings::session_linger_days, whole{0, 3650},
            "Days an expired session is kept (it answers 3, 'expired', rather than 2, 'unknown', meanwhile) "
            "before keeperctl maintain deletes it."),
        key("key_retention_hours", &settings::key_retention_hours, whole{24, 8760},
            "Hours an Idempotency-Key is kept: a repeat within them answers the first call's result "
            "(docs/api-decisions.md, \"Idempotency-Key\"). keeperctl maintain deletes older keys. At least 24."),
        key("purge_batch_rows", &settings::purge_batch_rows, whole{1, 1000000},
            "Rows keeperctl maintain deletes per transaction when purging sessions and the throttles' failures: short "
            "transactions, no long locks on the hot tables."),
    };
    return defs;
}

}  // namespace keeper::config
