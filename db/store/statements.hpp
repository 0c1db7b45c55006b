#pragma once
// Every SQL statement the worker runs (the session settings of a new connection aside), each one
// typed handle (db/store/statement.hpp). A call that writes an audit row passes the call's frame
// first as one keeper_call value, which its function hands to keeper_claim and keeper_audit
// (db/functions/); call_statement (db/store/call_statement.hpp) writes that part of the SQL. All
// are prepared from one list (worker_statements) on every new connection; tests check each list
// entry's SQL against its parameter names (unit, statement_handles) and against the database's own
// column names (db, pg_store_connection). The operations' work is in the keeper_* functions of
// db/functions/; each statement is one round trip in autocommit (the function's statement is its
// transaction).
#include <array>

#include "db/store/call_statement.hpp"
#include "db/store/statement.hpp"

namespace keeper::db {

namespace statements {

inline constexpr auto find_login_secret = make_statement(
    "find_login_secret", "SELECT shared_secret FROM logins WHERE login = $1", {"login"}, {"shared_secret"});
inline constexpr auto find_application = make_statement(
    "find_application", "SELECT shared_secret, push_provider, enabled FROM applications WHERE app_id = $1", {"app_id"},
    {"shared_secret", "push_provider", "enabled"});
inline constexpr auto authenticate = call_statement(
    "authenticate", "keeper_authenticate", {"login", "session_hash", "proven", "window_seconds", "max_failures"});
inline constexpr auto check_session =
    call_statement("check_session", "keeper_check_session", {"session_hash", "ttl_seconds", "app_id"});
inline constexpr auto set_account_permits =
    call_statement("set_account_permits", "keeper_set_account_permits",
                   {"session_hash", "ttl_seconds", "payments", "invoices", "messages"});
inline constexpr auto set_contact_permits = call_statement(
    "set_contact_permits", "keeper_set_contact_permits",
    {"session_hash", "ttl_seconds", "wmid", "payments", "invoices", "messages", "dont_use_confirmation"});
inline constexpr auto find_code =
    call_statement("find_code", "keeper_code_hash", {"session_hash", "ttl_seconds", "kind", "id", "task_id"},
                   {"result", "login_id", "code_hash"});
inline constexpr auto confirm_transfer =
    call_statement("confirm_transfer", "keeper_confirm_transfer", {"login_id", "tran_id", "matches", "max_attempts"});
inline constexpr auto confirm_task = call_statement("confirm_task", "keeper_confirm_task",
                                                    {"login_id", "profile_id", "task_id", "matches", "max_attempts"});
inline constexpr auto topup =
    call_statement("topup", "keeper_topup",
                   {"session_hash", "ttl_seconds", "purse", "card_id", "amount", "max_amount", "default_daily_limit"});
inline constexpr auto rename_profile =
    call_statement("rename_profile", "keeper_rename_profile", {"session_hash", "ttl_seconds", "profile_id", "name"});
inline constexpr auto subscribe_device =
    call_statement("subscribe_device", "keeper_subscribe_device",
                   {"session_hash", "ttl_seconds", "provider", "push_user", "tag", "locale"});
inline constexpr auto subscribe_app_device = call_statement(
    "subscribe_app_device", "keeper_subscribe_app_device",
    {"app_id", "user_id", "provider", "push_user", "tag", "locale", "proven", "window_seconds", "max_failures"});
inline constexpr auto mark_sms_delivered =
    call_statement("mark_sms_delivered", "keeper_mark_sms_delivered", {"session_hash", "ttl_seconds", "sms_id"});
inline constexpr auto audit_only =
    call_statement("audit_only", "keeper_refusal", {"login_id", "login", "app_id", "result"});
// How an in-doubt call ended: the result its audit row recorded, NULL when it did not happen.
inline constexpr auto call_outcome =
    make_statement("call_outcome", "SELECT keeper_call_outcome($1) AS result", {"request_id"}, {"result"});
// A caller's look at one of its own calls (GET /call-outcome), which decides it from $5 on (the time
// an attempt that began in time has ended, core/pipeline/call_outcome.cpp): the session's code, and
// the outcome ('recorded' with the result and UTC time, ISO 8601; 'none'; 'pending' with the
// milliseconds to wait). $4 is the request id's time. Its last argument, read as the workers' role,
// which sees its own backends' transactions: whether no transaction of theirs that began by 2 s
// after the call's time is still open (an attempt that began then takes no lock). Commits what it
// answers, waiting for the synchronous standby (db/functions/keeper_decide_call.sql).
inline constexpr auto decide_call = make_statement(
    "decide_call",
    "SELECT code, outcome, result, at, wait_ms FROM keeper_decide_call($1, $2, $3, $4::timestamptz, $5::timestamptz, "
    "NOT EXISTS (SELECT 1 FROM pg_stat_activity WHERE usename = current_user AND pid <> pg_backend_pid() "
    "AND xact_start < $4::timestamptz + interval '2 seconds'))",
    {"session_hash", "ttl_seconds", "request_id", "sent", "final"}, {"code", "outcome", "result", "at", "wait_ms"});

// Writes a WAL record naming the call and commits: under synchronous replication that commit
// returns only once the synchronous standby holds it, and with it every commit before it
// (docs/design.md, "No acknowledgement before replication").
inline constexpr auto await_standby =
    make_statement("await_standby", "SELECT pg_logical_emit_message(true, 'keeper', $1) AS at", {"request_id"}, {"at"});

// The connection's own server process, named uniquely on its server: a pid alone may be reused.
inline constexpr auto own_backend =
    make_statement("own_backend", "SELECT pid, backend_start::text FROM pg_stat_activity WHERE pid = pg_backend_pid()",
                   {"pid", "backend_start"});
// Ends one server process (an in-doubt call's, or the one holding a retried call's claim), and asks
// whether it is gone (db/store/backend_ending.cpp).
inline constexpr auto end_backend = make_statement("end_backend",
                                                   "SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity "
                                                   "WHERE pid = $1::int AND backend_start = $2::timestamptz",
                                                   {"pid", "backend_start"}, {"ended"});
inline constexpr auto backend_running = make_statement(
    "backend_running",
    "SELECT count(*) AS running FROM pg_stat_activity WHERE pid = $1::int AND backend_start = $2::timestamptz",
    {"pid", "backend_start"}, {"running"});
// Lists a call nginx sent again (db/functions/keeper_mark_retried.sql), before anything else the
// retry does: from then on every attempt of the call that takes its claim looks for its audit row.
inline constexpr auto mark_retried =
    make_statement("mark_retried", "SELECT keeper_mark_retried($1) AS marked", {"request_id"}, {"marked"});
// The server process that holds a call's claim (db/functions/keeper_claim.sql): an attempt of the
// call, running or committing, from whichever worker or host sent it. A bigint advisory key shows in
// pg_locks as its high 32 bits (classid) and low 32 bits (objid), with objsubid 1. (Another
// database's lock with the same 64-bit hash is left out of account: keeper's cluster is its own.)
inline constexpr auto claim_holders =
    make_statement("claim_holders",
                   "SELECT pid, a.backend_start::text FROM pg_locks l JOIN pg_stat_activity a USING (pid) "
                   "WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1 AND pid <> pg_backend_pid() "
                   "AND l.classid::int8 = (hashtextextended($1, 0) >> 32) & 4294967295 "
                   "AND l.objid::int8 = hashtextextended($1, 0) & 4294967295",
                   {"request_id"}, {"pid", "backend_start"});
// Every server process a keeper worker opened, by the name it gave its connection
// (db/store/backend_ending.hpp): a retry ends those whose worker on this host is gone.
inline constexpr auto worker_backends =
    make_statement("worker_backends",
                   "SELECT pid, backend_start::text, application_name FROM pg_stat_activity "
                   "WHERE application_name LIKE 'keeper-fcgi %' AND pid <> pg_backend_pid()",
                   {"pid", "backend_start", "application_name"});
// GET /health: the database answers.
inline constexpr auto ping = make_statement("ping", "SELECT 1 AS up", {"up"});
// GET /ready: the database takes writes (a standby, read-only, answers false).
inline constexpr auto writable = make_statement("writable", "SELECT NOT pg_is_in_recovery() AS writable", {"writable"});
// GET /metrics: whether the primary names a synchronous standby (Patroni empties the setting when
// it drops a lost standby, docs/design.md, "No acknowledgement before replication").
inline constexpr auto synchronous_standby = make_statement(
    "synchronous_standby", "SELECT current_setting('synchronous_standby_names') <> '' AS named", {"named"});
// GET /metrics: the database's clock, the one keeper_claim and keeper_decide_call read, in
// microseconds since the epoch, to set against this host's (pg_store::database_clock_offset).
inline constexpr auto database_clock = make_statement(
    "database_clock", "SELECT (extract(epoch FROM clock_timestamp()) * 1000000)::bigint AS micros", {"micros"});

}  // namespace statements

// Prepared on every new connection, in this order.
inline constexpr std::array worker_statements{
    statements::find_login_secret.text(),
    statements::find_application.text(),
    statements::authenticate.text(),
    statements::check_session.text(),
    statements::set_account_permits.text(),
    statements::set_contact_permits.text(),
    statements::find_code.text(),
    statements::confirm_transfer.text(),
    statements::confirm_task.text(),
    statements::topup.text(),
    statements::rename_profile.text(),
    statements::subscribe_device.text(),
    statements::subscribe_app_device.text(),
    statements::mark_sms_delivered.text(),
    statements::audit_only.text(),
    statements::call_outcome.text(),
    statements::decide_call.text(),
    statements::await_standby.text(),
    statements::own_backend.text(),
    statements::end_backend.text(),
    statements::backend_running.text(),
    statements::mark_retried.text(),
    statements::claim_holders.text(),
    statements::worker_backends.text(),
    statements::ping.text(),
    statements::writable.text(),
    statements::synchronous_standby.text(),
    statements::database_clock.text(),
};

}  // namespace keeper::db
