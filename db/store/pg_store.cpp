#include "db/store/pg_store.hpp"

#include <pqxx/pqxx>

#include <algorithm>
#include <charconv>
#include <thread>
#include <tuple>

#include "db/store/backend_ending.hpp"
#include "db/store/statements.hpp"

namespace keeper::db {
namespace {

using core::store_error;

// Nothing reached the database, or nothing was done there: no host answered as the primary, or a
// standby refused the statement (SQLSTATE 25006, read-only: the primary moved). The call may run
// again on a new connection to whichever host is primary by then.
struct not_done : store_error {
    using store_error::store_error;
};

// The connection broke while the statement was on its way, running or committing: the call may have
// committed. backend names the server process that ran it (as the connection's setup read it).
struct in_doubt : store_error {
    in_doubt(const std::string& what, backend_identity backend_process) : store_error(what), backend(std::move(backend_process)) {}
    backend_identity backend;
};

// A keyed call's first attempt met its key on the key index (SQLSTATE 23505): the caller made a
// call with this key before, so this is a repeat, which runs again to read that call
// (db/functions/keeper_audit.sql). Its transaction changed nothing.
struct key_recorded : store_error {
    key_recorded() : store_error("the Idempotency-Key is recorded already") {}
};
constexpr std::string_view idempotency_key_index = "idempotency_keys_caller_key_idx";

// The statement waited lock_timeout_ms for a lock (SQLSTATE 55P03) and was rolled back.
struct lock_timed_out : core::not_applied {
    explicit lock_timed_out(const std::string& what) : core::not_applied(what) {}
};

// Why a commit the call made, or found recorded, is not acknowledged (docs/design.md, "No
// acknowledgement before replication"); for the log's detail.
constexpr std::string_view not_on_standby = "its commit was not on the synchronous standby by the call's deadline";

// A keyed call's repeat (SQLSTATE KI2nn, db/functions/keeper_idempotency.sql): its transaction
// changed nothing, and the first call with the key recorded `result`.
struct replay : store_error {
    explicit replay(core::result_code recorded) : store_error("a repeat of a keyed call"), result(recorded) {}
    core::result_code result;
};

// The recorded result a replay's SQLSTATE carries in its last two digits (KI200 to KI212).
std::optional<core::result_code> replayed_result(const std::string& sqlstate) {
    if (sqlstate.size() != 5 || !sqlstate.starts_with("KI2")) return std::nullopt;
    int code = 0;
    const auto* end = sqlstate.data() + sqlstate.size();
    if (std::from_chars(sqlstate.data() + 3, end, code).ptr != end || code > core::last_result_code) return std::nullopt;
    return static_cast<core::result_code>(code);
}

// Runs f, translating libpqxx's errors. Messages name the statement and SQLSTATE, never the
// values, so nothing from a request (a secret, a code) can reach the log through them.
template <typename F>
auto translated(std::string_view what, connection_pool::lease& lease, core::runtime_gauges* gauges, F&& f) -> decltype(f()) {
    try {
        return f();
    } catch (const pqxx::broken_connection&) {
        lease.mark_broken();
        throw in_doubt("database connection lost during " + std::string{what}, lease.identity());
    } catch (const pqxx::in_doubt_error&) {
        lease.mark_broken();
        throw in_doubt("commit outcome unknown during " + std::string{what} + " (connection lost)", lease.identity());
    } catch (const pqxx::sql_error& e) {
        if (e.sqlstate() == "25006") {
            lease.mark_broken();
            throw not_done("the database host is read-only (a standby) during " + std::string{what});
        }
        if (e.sqlstate().rfind("57P", 0) == 0 || e.sqlstate().rfind("08", 0) == 0) {
            // The server ended this session (admin shutdown, crash, terminated) or the link failed.
            lease.mark_broken();
            throw in_doubt("database session ended (SQLSTATE " + e.sqlstate() + ") during " + std::string{what}, lease.identity());
        }
        // A repeat of a call made with the same Idempotency-Key (db/functions/keeper_audit.sql): the
        // index is named in the message whatever its language; the message's other text (which
        // quotes the key) goes nowhere.
        if (e.sqlstate() == "23505" && std::string_view{e.what()}.find(idempotency_key_index) != std::string_view::npos) {
            throw key_recorded();
        }
        if (const auto recorded = replayed_result(e.sqlstate())) throw replay(*recorded);
        if (e.sqlstate() == "KI422") throw core::key_reused();
        if (e.sqlstate() == "55P03") {
            if (gauges) gauges->db_lock_timeouts.fetch_add(1, std::memory_order_relaxed);
            throw lock_timed_out("SQL error 55P03 in " + std::string{what});
        }
        if (e.sqlstate() == "57014") {
            // Cancelled (statement_timeout, or the call's cancel point) and rolled back.
            if (gauges) gauges->db_statement_timeouts.fetch_add(1, std::memory_order_relaxed);
            throw core::not_applied("SQL error 57014 in " + std::string{what});
        }
        throw store_error("SQL error " + e.sqlstate() + " in " + std::string{what});
    } catch (const pqxx::failure&) {
        lease.mark_broken();
        throw in_doubt("database failure during " + std::string{what}, lease.identity());
    }
}

pqxx::connection& open(connection_pool::lease& lease) {
    try {
        return lease.connection();
    } catch (const pqxx::failure&) {
        lease.mark_broken();
        throw not_done("cannot connect to the database");
    }
}

// Run on every new connection: the call bounds, then every statement prepared. Returns the server
// process's pid and start time, which name it uniquely on its server (a pid alone may be reused).
connection_pool::preparer connection_setup(database_timeouts bounds) {
    return [bounds](pqxx::connection& conn) {
        // set_variable also restores them should libpqxx reconnect this connection itself.
        conn.set_variable("lock_timeout", std::to_string(bounds.lock.count()));
        conn.set_variable("statement_timeout", std::to_string(bounds.statement.count()));
        // Names this worker in pg_stat_activity (over any name the connection string gives): how
        // another worker finds this one's sessions should it die mid-call (backend_ending.hpp).
        conn.set_variable("application_name", conn.quote(worker_application_name()));
        for (const auto& s : worker_statements) conn.prepare(std::string{s.name}, std::string{s.sql});
        constexpr const auto& s = statements::own_backend;
        const auto row = pqxx::nontransaction{conn}.exec_prepared1(std::string{s.name});
        return backend_identity{row[s.column("pid").data()].as<int>(), row[s.column("backend_start").data()].as<std::string>()};
    };
}

consteval bool is_prepared(std::string_view name) {
    for (const auto& s : worker_statements) {
        if (s.name == name) return true;
    }
    return false;
}

std::string text(std::string_view v) { return std::string{v}; }
// SQL NULL for an empty value: the audit row's login and app_id when the call named none.
std::optional<std::string> none_if_empty(std::string_view v) {
    return v.empty() ? std::nullopt : std::optional<std::string>{v};
}
std::chrono::seconds::rep seconds(std::chrono::seconds s) { return s.count(); }

// A call's frame: the first arguments of every statement that writes an audit row, in the order
// of statements.hpp's call_frame.
auto frame_of(const core::audit_tag& tag, std::string_view key, std::string_view fingerprint, bool key_used) {
    auto frame = std::make_tuple(text(tag.request_id), text(tag.operation), text(key), text(fingerprint), key_used);
    static_assert(std::tuple_size_v<decltype(frame)> == call_frame.size());
    return frame;
}

core::result_code as_result(const pqxx::field& f) { return static_cast<core::result_code>(f.as<int>()); }

}  // namespace

// A code lookup's answer; settled after its connection broke, only a final result (2, 3, 5) can
// have been recorded: the lookup itself writes nothing else.
core::code_lookup pg_store::code_lookup_of(const answer& a) {
    constexpr const auto& s = statements::find_code;
    core::code_lookup out;
    if (!a.rows) {
        out.result = a.recorded;
        return out;
    }
    const auto row = a.rows->at(0);
    out.result = as_result(row[s.column("result").data()]);
    if (out.result == core::result_code::ok) {
        out.login_id = row[s.column("login_id").data()].as<std::int64_t>();
        out.code_hash = row[s.column("code_hash").data()].as<std::string>();
    }
    return out;
}

pg_store::pg_store(std::string conninfo, std::size_t connections, database_timeouts bounds,
                   std::shared_ptr<const key_file> keys, core::runtime_gauges* gauges)
    : m_pool(std::move(conninfo), connections, connection_setup(bounds), gauges),
      m_bounds(bounds),
      m_keys(std::move(keys)),
      m_gauges(gauges) {}

std::string pg_store::opened_secret(const std::string& stored, const std::string& row) const {
    if (!is_sealed(stored)) return stored;  // still in clear: sealed by the next keeperctl rotate-key
    if (!m_keys) throw core::store_error("a sealed secret and no key to open it");
    try {
        return m_keys->open(stored, row);
    } catch (const key_error& e) {
        throw core::store_error(e.what());  // names the key id, never the secret
    }
}
pg_store::~pg_store() = default;

// Runs a statement until it answers, by the call's deadline (docs/design.md, "In-doubt calls"):
// again when nothing was done (no primary yet, a standby refused), and when the connection broke
// with the statement sent: a read again at once, a call once it is known not to have happened, or
// its recorded result once it is known to have happened and to be on the synchronous standby.
template <const auto& S, typename... Args>
pg_store::answer pg_store::run(call_ref call, const Args&... args) {
    static_assert(sizeof...(Args) == S.param_count, "one argument per parameter of the statement");
    static_assert(is_prepared(S.name), "a statement every connection prepares (worker_statements)");
    const std::string_view request_id = call.request_id;
    if (call.retried && !request_id.empty()) {
        if (const auto recorded = settle_retried(request_id, call.until)) {
            if (m_gauges) m_gauges->db_in_doubt_recorded.fetch_add(1, std::memory_order_relaxed);
            return {std::nullopt, *recorded};
        }
    }
    bool waited_for_primary = false;  // counted once the call answers (a rerun after a doubt is not a wait)
    for (int attempt = 0;; ++attempt) {
        try {
            auto rows = run_once(S.name, call, args...);
            if (waited_for_primary && m_gauges) m_gauges->db_waited_for_primary.fetch_add(1, std::memory_order_relaxed);
            return {std::move(rows), {}};
        } catch (const not_done& e) {
            if (!pause_before_retry(call.until, attempt)) throw core::not_applied(e.what());
            waited_for_primary = true;
        } catch (const in_doubt& e) {
            if (request_id.empty()) {
                if (!pause_before_retry(call.until, attempt)) throw core::not_applied(e.what());
                continue;
            }
            if (const auto recorded = settle(e.backend, request_id, call.until)) {
                if (m_gauges) m_gauges->db_in_doubt_recorded.fetch_add(1, std::memory_order_relaxed);
                return {std::nullopt, *recorded};
            }
            if (m_gauges) m_gauges->db_in_doubt_rerun.fetch_add(1, std::memory_order_relaxed);
        }
    }
}

std::optional<core::result_code> pg_store::settle(const backend_identity& backend, std::string_view request_id,
                                                  const core::deadline& until) {
    return settle_with([&](pqxx::connection& conn) { return end_backend(conn, backend, until); }, request_id, until);
}

std::optional<core::result_code> pg_store::settle_retried(std::string_view request_id, const core::deadline& until) {
    return settle_with([&](pqxx::connection& conn) { return end_dead_workers_backends(conn, until); }, request_id,
                       until);
}

template <typename EndFirst>
std::optional<core::result_code> pg_store::settle_with(EndFirst&& end_first, std::string_view request_id,
                                                       const core::deadline& until) {
    std::optional<core::result_code> outcome;
    for (int attempt = 0;; ++attempt) {
        try {
            auto lease = m_pool.acquire(until);
            auto& conn = open(lease);
            const statement_watch::guard watched{m_watch, conn, cancel_point(until), until};
            outcome = translated("settling an in-doubt call", lease, m_gauges, [&]() -> std::optional<core::result_code> {
                if (!end_first(conn)) throw not_done("the call's server process did not end");
                const auto r = pqxx::nontransaction{conn}.exec_prepared1("call_outcome", std::string{request_id});
                if (r[0].is_null()) return std::nullopt;
                return as_result(r[0]);
            });
            break;
        } catch (const store_error&) {
            if (!pause_before_retry(until, attempt)) give_up_unknown(request_id, "not settled by the call's deadline");
        }
    }
    // Ending the first attempt's server process makes a commit that waited for the standby visible
    // here before the standby has it: a failover now would lose what the answer acknowledges.
    if (outcome && !on_standby(request_id, until)) {
        give_up_unknown(request_id, not_on_standby);
    }
    return outcome;
}

bool pg_store::on_standby(std::string_view request_id, const core::deadline& until) {
    try {
        auto lease = m_pool.acquire(until);
        auto& conn = open(lease);
        const statement_watch::guard watched{m_watch, conn, cancel_point(until), until};
        translated(statements::await_standby.name, lease, m_gauges, [&] {
            return pqxx::nontransaction{conn}.exec_prepared(std::string{statements::await_standby.name},
                                                             std::string{request_id});
        });
        // Interrupted, its commit stopped waiting for the standby: nothing is known of it.
        return !watched.interrupted();
    } catch (const store_error&) {
        return false;
    }
}

void pg_store::give_up_unknown(std::string_view request_id, std::string_view why) {
    if (m_gauges) m_gauges->db_outcome_unknown.fetch_add(1, std::memory_order_relaxed);
    throw core::outcome_unknown(request_id, why);
}

core::deadline pg_store::cancel_point(const core::deadline& until) const {
    // A tenth of the budget, at most a second: the cancel request's round trip, the answer's writing.
    return until.less(std::min(std::chrono::milliseconds{1000}, m_bounds.budget / 10));
}

bool pg_store::pause_before_retry(const core::deadline& until, int attempt) {
    // 20 ms, doubling up to 500 ms: a switchover takes about a second, a failover many.
    const auto pause = std::chrono::milliseconds{std::min(500, 20 << std::min(attempt, 5))};
    if (cancel_point(until).less(pause).passed()) return false;
    if (m_waiting.fetch_add(1) >= m_bounds.waiting_calls) {
        m_waiting.fetch_sub(1);
        return false;
    }
    std::this_thread::sleep_for(pause);
    m_waiting.fetch_sub(1);
    return true;
}

template <typename... Args>
pqxx::result pg_store::run_once(std::string_view name, call_ref call, const Args&... args) {
    auto lease = m_pool.acquire(call.until);
    auto& conn = open(lease);
    const auto cancel_at = cancel_point(call.until);
    if (cancel_at.passed()) throw core::not_applied("the call's deadline came before its statement was sent");
    const auto started = std::chrono::steady_clock::now();
    const statement_watch::guard watched{m_watch, conn, cancel_at, call.until};
    auto result = translated(name, lease, m_gauges, [&] {
        pqxx::nontransaction tx{conn};
        return tx.exec_prepared(std::string{name}, args...);
    });
    if (m_gauges) {
        core::record_database_call(*m_gauges, std::chrono::duration_cast<std::chrono::microseconds>(
                                                  std::chrono::steady_clock::now() - started));
    }
    // A write that answered although it was cancelled had committed, and its commit stopped
    // waiting for the synchronous standby: on the primary only, so neither done nor undone.
    if (!call.request_id.empty() && watched.interrupted()) {
        lease.mark_broken();
        give_up_unknown(call.request_id, not_on_standby);
    }
    return result;
}

template <const auto& S, typename Frame, typename... Args>
pg_store::answer pg_store::run_framed(call_ref call, const Frame& frame, const Args&... args) {
    return std::apply([&](const auto&... f) { return run<S>(call, f..., args...); }, frame);
}

// An unkeyed call: its frame with no key.
template <const auto& S, typename... Args>
core::result_code pg_store::run_call(const core::audit_tag& tag, const Args&... args) {
    const auto a = run_framed<S>({tag.request_id, tag.retried, tag.until}, frame_of(tag, {}, {}, false), args...);
    return a.rows ? as_result(a.rows->at(0)[S.column("result").data()]) : a.recorded;
}

template <const auto& S, typename... Args>
pg_store::answer pg_store::run_keyed(const core::audit_tag& tag, const Args&... args) {
    const auto attempt = [&](bool key_used, std::string_view fingerprint) {
        // A retried call's first attempt is settled once, before it runs at all.
        return run_framed<S>({tag.request_id, tag.retried && !key_used, tag.until},
                             frame_of(tag, tag.idempotency_key, fingerprint, key_used), args...);
    };
    try {
        try {
            return attempt(false, tag.fingerprint);
        } catch (const key_recorded&) {
            try {
                return attempt(true, tag.fingerprint);  // the recorded call (KI2nn, KI422), or runs if it rolled back since
            } catch (const core::key_reused&) {
                // Recorded by an earlier version, with the fingerprint it computed (call_fingerprint.hpp).
                if (tag.legacy_fingerprint.empty() || tag.legacy_fingerprint == tag.fingerprint) throw;
                return attempt(true, tag.legacy_fingerprint);
            }
        }
    } catch (const lock_timed_out&) {
        // Nothing changed, and the key makes a repeat safe: the client is told to repeat it (409).
        // Unkeyed, the same wait is answered "not applied".
        if (tag.idempotency_key.empty()) throw;
        throw core::key_in_flight();
    } catch (const replay& r) {
        // The recorded call may be one whose commit was made visible before the standby had it
        // (its server process ended while it waited): answered once the standby holds it.
        if (!on_standby(tag.request_id, tag.until)) {
            give_up_unknown(tag.request_id, not_on_standby);
        }
        if (tag.replayed) *tag.replayed = true;
        return {std::nullopt, r.result};
    }
}

template <const auto& S, typename... Args>
core::result_code pg_store::run_keyed_call(const core::audit_tag& tag, const Args&... args) {
    const auto a = run_keyed<S>(tag, args...);
    return a.rows ? as_result(a.rows->at(0)[S.column("result").data()]) : a.recorded;
}

std::optional<std::string> pg_store::find_login_secret(std::string_view login, const core::deadline& until) {
    const auto r = *run<statements::find_login_secret>({{}, false, until}, text(login)).rows;
    if (r.empty()) return std::nullopt;
    const auto secret = r[0][statements::find_login_secret.column("shared_secret").data()].as<std::string>();
    return opened_secret(secret, login_secret_row(login));
}

core::result_code pg_store::authenticate(const core::audit_tag& tag, std::string_view login, std::string_view session_id,
                                         bool proven, std::chrono::seconds failure_window, int max_failures) {
    return run_keyed_call<statements::authenticate>(tag, text(login), text(session_id), proven,
                    seconds(failure_window), max_failures);
}

core::result_code pg_store::check_session(const core::audit_tag& tag, const core::session_ref& session,
                                          std::string_view app_id) {
    return run_call<statements::check_session>(tag, text(session.session_id), seconds(session.ttl), text(app_id));
}

core::result_code pg_store::set_account_permits(const core::audit_tag& tag, const core::session_ref& session,
                                                bool payments, bool invoices, bool messages) {
    return run_keyed_call<statements::set_account_permits>(tag, text(session.session_id),
                    seconds(session.ttl), payments, invoices, messages);
}

core::result_code pg_store::set_contact_permits(const core::audit_tag& tag, const core::session_ref& session,
                                                std::string_view wmid, bool payments, bool invoices, bool messages,
                                                bool dont_use_confirmation) {
    return run_keyed_call<statements::set_contact_permits>(tag, text(session.session_id),
                    seconds(session.ttl), text(wmid), payments, invoices, messages, dont_use_confirmation);
}

core::code_lookup pg_store::find_transfer_code(const core::audit_tag& tag, const core::session_ref& session,
                                               std::int64_t tran_id) {
    return code_lookup_of(run_keyed<statements::find_code>(tag, text(session.session_id), seconds(session.ttl),
                                                           std::string{"transfer"}, tran_id, 0));
}

core::result_code pg_store::confirm_transfer(const core::audit_tag& tag, const core::coded_call& call,
                                             std::int64_t tran_id) {
    return run_keyed_call<statements::confirm_transfer>(tag, call.login_id, tran_id, call.code_matches, call.max_attempts);
}

core::code_lookup pg_store::find_task_code(const core::audit_tag& tag, const core::session_ref& session,
                                           std::int32_t profile_id, std::int32_t task_id) {
    return code_lookup_of(run_keyed<statements::find_code>(tag, text(session.session_id), seconds(session.ttl),
                                                           std::string{"task"}, static_cast<std::int64_t>(profile_id),
                                                           task_id));
}

core::result_code pg_store::confirm_task(const core::audit_tag& tag, const core::coded_call& call,
                                         std::int32_t profile_id, std::int32_t task_id) {
    return run_keyed_call<statements::confirm_task>(tag, call.login_id, profile_id, task_id, call.code_matches, call.max_attempts);
}

core::result_code pg_store::topup(const core::audit_tag& tag, const core::session_ref& session,
                                  const core::topup_request& t) {
    return run_keyed_call<statements::topup>(tag, text(session.session_id), seconds(session.ttl),
                    text(t.purse), t.card_id, text(t.amount), text(t.max_amount), text(t.default_daily_limit));
}

core::result_code pg_store::rename_profile(const core::audit_tag& tag, const core::session_ref& session,
                                           std::int32_t profile_id, std::string_view name) {
    return run_keyed_call<statements::rename_profile>(tag, text(session.session_id),
                    seconds(session.ttl), profile_id, text(name));
}

core::result_code pg_store::subscribe_device(const core::audit_tag& tag, const core::session_ref& session,
                                             const core::device_subscription& d) {
    return run_keyed_call<statements::subscribe_device>(tag, text(session.session_id),
                    seconds(session.ttl), text(core::provider_name(d.push_provider)), text(d.push_service_user_id),
                    d.tag, d.locale);
}

std::optional<core::application_record> pg_store::find_application(std::string_view app_id,
                                                                   const core::deadline& until) {
    const auto r = *run<statements::find_application>({{}, false, until}, text(app_id)).rows;
    if (r.empty()) return std::nullopt;
    constexpr const auto& s = statements::find_application;
    const auto row = r[0];
    const auto provider = core::provider_from_name(row[s.column("push_provider").data()].as<std::string>());
    const auto secret = row[s.column("shared_secret").data()].as<std::string>();
    return core::application_record{opened_secret(secret, application_secret_row(app_id)),
                                    provider.value_or(core::provider::Undefined), row[s.column("enabled").data()].as<bool>()};
}

core::result_code pg_store::subscribe_app_device(const core::audit_tag& tag, std::string_view app_id,
                                                 std::string_view user_id, const core::device_subscription& d) {
    return run_keyed_call<statements::subscribe_app_device>(tag, text(app_id), text(user_id),
                    text(core::provider_name(d.push_provider)), text(d.push_service_user_id), d.tag, d.locale);
}

core::result_code pg_store::mark_sms_delivered(const core::audit_tag& tag, const core::session_ref& session,
                                               std::int32_t sms_id) {
    return run_keyed_call<statements::mark_sms_delivered>(tag, text(session.session_id),
                    seconds(session.ttl), sms_id);
}

core::result_code pg_store::audit_only(const core::audit_tag& tag, std::string_view login, std::string_view app_id,
                                       core::result_code result) {
    // The login as the call named it: keeper_audit finds its id.
    return run_keyed_call<statements::audit_only>(tag, std::optional<std::int64_t>{}, none_if_empty(login),
                    none_if_empty(app_id), static_cast<int>(result));
}

bool pg_store::healthy() {
    try {
        auto lease = m_pool.acquire(core::deadline::after(m_bounds.statement));
        try {
            pqxx::nontransaction{lease.connection()}.exec_prepared(std::string{statements::ping.name});
            return true;
        } catch (...) {
            lease.mark_broken();
            return false;
        }
    } catch (const connection_pool::wait_expired&) {
        return false;
    }
}

}  // namespace keeper::db
