#pragma once
// Every SQL statement the worker runs (the session settings of a new connection aside), each one
// typed handle: its name (the prepared statement's),
// its SQL, the names of its parameters ($1, $2, … in order) and of the columns it returns.
// A write's statement passes the call's Idempotency-Key (empty: none), its fingerprint and
// key_used as its last three parameters, which its function hands to keeper_audit to record or
// check (db/functions/keeper_audit.sql).
// pg_store.cpp runs them by handle: a call with the wrong number of arguments, or a read of a
// column the statement does not return, does not compile. All are prepared from one list
// (worker_statements) on every new connection; tests check each list entry's SQL against its
// parameter names (unit, statement_handles) and against the database's own column names (db,
// pg_store_connection). The operations' work is in the keeper_* functions of db/functions/;
// each statement is one round trip in autocommit (the function's statement is its transaction).
#include <array>
#include <cstddef>
#include <span>
#include <string_view>

namespace keeper::db {

// What the list holds: a handle with its sizes erased.
struct statement_text {
    std::string_view name;
    std::string_view sql;
    std::span<const std::string_view> params;
    std::span<const std::string_view> columns;
};

template <std::size_t P, std::size_t C>
struct statement {
    std::string_view name;
    std::string_view sql;
    std::array<std::string_view, P> params;
    std::array<std::string_view, C> columns;

    static constexpr std::size_t param_count = P;

    // The name of a column this statement returns; any other name is a compile error. (Its data()
    // is the string literal's, so it also serves as a C string.)
    consteval std::string_view column(std::string_view wanted) const {
        for (const auto c : columns) {
            if (c == wanted) return c;
        }
        throw "statement does not return this column";  // not a constant expression: does not compile
    }
    constexpr statement_text text() const { return {name, sql, params, columns}; }
};

template <std::size_t P, std::size_t C>
consteval statement<P, C> make_statement(std::string_view name, std::string_view sql, const std::string_view (&params)[P],
                                         const std::string_view (&columns)[C]) {
    statement<P, C> s{name, sql, {}, {}};
    for (std::size_t i = 0; i < P; ++i) s.params[i] = params[i];
    for (std::size_t i = 0; i < C; ++i) s.columns[i] = columns[i];
    return s;
}

// A statement without parameters.
template <std::size_t C>
consteval statement<0, C> make_statement(std::string_view name, std::string_view sql, const std::string_view (&columns)[C]) {
    statement<0, C> s{name, sql, {}, {}};
    for (std::size_t i = 0; i < C; ++i) s.columns[i] = columns[i];
    return s;
}

namespace statements {

inline constexpr auto find_login_secret =
    make_statement("find_login_secret", "SELECT shared_secret FROM logins WHERE login = $1", {"login"}, {"shared_secret"});
inline constexpr auto find_application =
    make_statement("find_application", "SELECT shared_secret, push_provider, enabled FROM applications WHERE app_id = $1",
                   {"app_id"}, {"shared_secret", "push_provider", "enabled"});
inline constexpr auto authenticate =
    make_statement("authenticate",
                   "SELECT keeper_authenticate($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) AS result",
                   {"request_id", "operation", "login", "session", "proven", "window_seconds", "max_failures", "idempotency_key", "fingerprint", "key_used"}, {"result"});
inline constexpr auto check_session =
    make_statement("check_session", "SELECT keeper_check_session($1, $2, $3, $4, $5) AS result",
                   {"request_id", "operation", "session", "ttl_seconds", "app_id"}, {"result"});
inline constexpr auto set_account_permits =
    make_statement("set_account_permits",
                   "SELECT keeper_set_account_permits($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) AS result",
                   {"request_id", "operation", "session", "ttl_seconds", "payments", "invoices", "messages", "idempotency_key", "fingerprint", "key_used"}, {"result"});
inline constexpr auto set_contact_permits =
    make_statement("set_contact_permits",
                   "SELECT keeper_set_contact_permits($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) AS result",
                   {"request_id", "operation", "session", "ttl_seconds", "wmid", "payments", "invoices", "messages",
                    "dont_use_confirmation", "idempotency_key", "fingerprint", "key_used"},
                   {"result"});
inline constexpr auto find_code =
    make_statement("find_code",
                   "SELECT result, login_id, login, code_hash "
                   "FROM keeper_code_hash($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
                   {"request_id", "operation", "session", "ttl_seconds", "kind", "id", "task_id", "idempotency_key", "fingerprint", "key_used"},
                   {"result", "login_id", "login", "code_hash"});
inline constexpr auto confirm_transfer =
    make_statement("confirm_transfer",
                   "SELECT keeper_confirm_transfer($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) AS result",
                   {"request_id", "operation", "login_id", "login", "tran_id", "matches", "max_attempts", "idempotency_key", "fingerprint", "key_used"}, {"result"});
inline constexpr auto confirm_task =
    make_statement("confirm_task",
                   "SELECT keeper_confirm_task($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) AS result",
                   {"request_id", "operation", "login_id", "login", "profile_id", "task_id", "matches", "max_attempts", "idempotency_key", "fingerprint", "key_used"},
                   {"result"});
inline constexpr auto topup =
    make_statement("topup",
                   "SELECT keeper_topup($1, $2, $3, $4, $5, $6, $7::numeric, $8::numeric, $9::numeric, $10, $11, $12) AS result",
                   {"request_id", "operation", "session", "ttl_seconds", "purse", "card_id", "amount", "max_amount",
                    "default_daily_limit", "idempotency_key", "fingerprint", "key_used"},
                   {"result"});
inline constexpr auto rename_profile =
    make_statement("rename_profile",
                   "SELECT keeper_rename_profile($1, $2, $3, $4, $5, $6, $7, $8, $9) AS result",
                   {"request_id", "operation", "session", "ttl_seconds", "profile_id", "name", "idempotency_key", "fingerprint", "key_used"}, {"result"});
inline constexpr auto subscribe_device =
    make_statement("subscribe_device",
                   "SELECT keeper_subscribe_device($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) AS result",
                   {"request_id", "operation", "session", "ttl_seconds", "provider", "push_user", "tag", "locale", "idempotency_key", "fingerprint", "key_used"},
                   {"result"});
inline constexpr auto subscribe_app_device =
    make_statement("subscribe_app_device",
                   "SELECT keeper_subscribe_app_device($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) AS result",
                   {"request_id", "operation", "app_id", "user_id", "provider", "push_user", "tag", "locale", "idempotency_key", "fingerprint", "key_used"}, {"result"});
inline constexpr auto mark_sms_delivered =
    make_statement("mark_sms_delivered",
                   "SELECT keeper_mark_sms_delivered($1, $2, $3, $4, $5, $6, $7, $8) AS result",
                   {"request_id", "operation", "session", "ttl_seconds", "sms_id", "idempotency_key", "fingerprint", "key_used"}, {"result"});
inline constexpr auto audit_only =
    make_statement("audit_only",
                   "SELECT keeper_audit($1, $2, NULLIF($3, ''), NULLIF($4, ''), $5, $6, $7, $8) AS result",
                   {"request_id", "operation", "login", "app_id", "result", "idempotency_key", "fingerprint", "key_used"}, {"result"});
// How an in-doubt call ended: the result its audit row recorded, NULL when it did not happen.
inline constexpr auto call_outcome =
    make_statement("call_outcome", "SELECT keeper_call_outcome($1) AS result", {"request_id"}, {"result"});

// Writes a WAL record naming the call and commits: under synchronous replication that commit
// returns only once the synchronous standby holds it, and with it every commit before it
// (docs/design.md, "No acknowledgement before replication").
inline constexpr auto await_standby =
    make_statement("await_standby", "SELECT pg_logical_emit_message(true, 'keeper', $1) AS at", {"request_id"}, {"at"});


// The connection's own server process, named uniquely on its server: a pid alone may be reused.
inline constexpr auto own_backend =
    make_statement("own_backend", "SELECT pid, backend_start::text FROM pg_stat_activity WHERE pid = pg_backend_pid()",
                   {"pid", "backend_start"});
// Ends one server process (an in-doubt call's, or a dead worker's), and asks whether it is gone
// (db/store/backend_ending.cpp).
inline constexpr auto end_backend =
    make_statement("end_backend",
                   "SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity "
                   "WHERE pid = $1::int AND backend_start = $2::timestamptz",
                   {"pid", "backend_start"}, {"ended"});
inline constexpr auto backend_running =
    make_statement("backend_running",
                   "SELECT count(*) AS running FROM pg_stat_activity WHERE pid = $1::int AND backend_start = $2::timestamptz",
                   {"pid", "backend_start"}, {"running"});
// The server processes of keeper's workers, by the application_name each worker gives its own.
inline constexpr auto worker_backends =
    make_statement("worker_backends",
                   "SELECT pid, backend_start::text, application_name FROM pg_stat_activity WHERE application_name LIKE $1",
                   {"name_pattern"}, {"pid", "backend_start", "application_name"});
// GET /health: the database answers.
inline constexpr auto ping = make_statement("ping", "SELECT 1 AS up", {"up"});

}  // namespace statements

// Prepared on every new connection, in this order.
inline constexpr std::array<statement_text, 22> worker_statements{
    statements::find_login_secret.text(),   statements::find_application.text(),  statements::authenticate.text(),
    statements::check_session.text(),       statements::set_account_permits.text(), statements::set_contact_permits.text(),
    statements::find_code.text(),           statements::confirm_transfer.text(),  statements::confirm_task.text(),
    statements::topup.text(),               statements::rename_profile.text(),    statements::subscribe_device.text(),
    statements::subscribe_app_device.text(), statements::mark_sms_delivered.text(), statements::audit_only.text(),
    statements::call_outcome.text(),        statements::await_standby.text(),   statements::own_backend.text(),
    statements::end_backend.text(),         statements::backend_running.text(), statements::worker_backends.text(),
    statements::ping.text(),
};

}  // namespace keeper::db
