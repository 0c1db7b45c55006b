#include "db/store/pg_store.hpp"

#include <pqxx/pqxx>

#include "db/store/statements.hpp"

namespace keeper::db {
namespace {

using core::store_error;

// The statement reached a standby (SQLSTATE 25006, read-only transaction): after a failover or a
// switchover the host this connection knew as primary is one no more. Nothing was done, so the
// call may run again, once, on a new connection to whichever host is primary now.
struct standby_refused : store_error {
    using store_error::store_error;
};

// Runs f, translating libpqxx's errors. Messages name the statement and SQLSTATE, never the
// values, so nothing from a request (a secret, a code) can reach the log through them.
template <typename F>
auto translated(std::string_view what, connection_pool::lease& lease, core::runtime_gauges* gauges, F&& f) -> decltype(f()) {
    try {
        return f();
    } catch (const pqxx::broken_connection&) {
        lease.mark_broken();
        throw store_error("database connection lost during " + std::string{what});
    } catch (const pqxx::in_doubt_error&) {
        lease.mark_broken();
        throw store_error("commit outcome unknown during " + std::string{what} + " (connection lost)");
    } catch (const pqxx::sql_error& e) {
        if (e.sqlstate() == "25006") {
            lease.mark_broken();
            throw standby_refused("the database host is read-only (a standby) during " + std::string{what});
        }
        if (gauges && e.sqlstate() == "55P03") gauges->db_lock_timeouts.fetch_add(1, std::memory_order_relaxed);
        if (gauges && e.sqlstate() == "57014") gauges->db_statement_timeouts.fetch_add(1, std::memory_order_relaxed);
        throw store_error("SQL error " + e.sqlstate() + " in " + std::string{what});
    } catch (const pqxx::failure&) {
        lease.mark_broken();
        throw store_error("database failure during " + std::string{what});
    }
}

pqxx::connection& open(connection_pool::lease& lease) {
    try {
        return lease.connection();
    } catch (const pqxx::failure&) {
        lease.mark_broken();
        throw store_error("cannot connect to the database");
    }
}

// Run on every new connection: the call bounds, then every statement prepared.
connection_pool::preparer connection_setup(database_timeouts bounds) {
    return [bounds](pqxx::connection& conn) {
        // set_variable also restores them should libpqxx reconnect this connection itself.
        conn.set_variable("lock_timeout", std::to_string(bounds.lock.count()));
        conn.set_variable("statement_timeout", std::to_string(bounds.statement.count()));
        for (const auto& s : worker_statements) conn.prepare(std::string{s.name}, std::string{s.sql});
    };
}

consteval bool is_prepared(std::string_view name) {
    for (const auto& s : worker_statements) {
        if (s.name == name) return true;
    }
    return false;
}

std::string text(std::string_view v) { return std::string{v}; }
std::chrono::seconds::rep seconds(std::chrono::seconds s) { return s.count(); }

core::result_code as_result(const pqxx::field& f) { return static_cast<core::result_code>(f.as<int>()); }

core::code_lookup code_lookup_of(const pqxx::result& r) {
    constexpr const auto& s = statements::find_code;
    const auto row = r.at(0);
    core::code_lookup out;
    out.result = as_result(row[s.column("result").data()]);
    if (out.result == core::result_code::ok) {
        out.login_id = row[s.column("login_id").data()].as<std::int64_t>();
        out.login = row[s.column("login").data()].as<std::string>();
        out.code_hash = row[s.column("code_hash").data()].as<std::string>();
    }
    return out;
}

}  // namespace

pg_store::pg_store(std::string conninfo, std::size_t connections, database_timeouts bounds,
                   std::shared_ptr<const secret_keyring> keys, core::runtime_gauges* gauges)
    : m_pool(std::move(conninfo), connections, connection_setup(bounds), gauges), m_keys(std::move(keys)), m_gauges(gauges) {}

std::string pg_store::opened_secret(const std::string& stored, const std::string& row) const {
    if (!is_sealed(stored)) return stored;  // still in clear: sealed by the next keeperctl rotate-key
    if (!m_keys) throw core::store_error("a sealed secret and no key to open it");
    try {
        return *m_keys->open(stored, row);
    } catch (const key_error& e) {
        throw core::store_error(e.what());  // names the key id, never the secret
    }
}
pg_store::~pg_store() = default;

// Retries only what certainly did nothing (docs/scaling.md, "What a call does when the database
// moves"): a statement a standby refused. A connection lost while the statement was on its way or
// running is never retried — the function may have committed — and is a server fault.
template <const auto& S, typename... Args>
pqxx::result pg_store::run(const Args&... args) {
    static_assert(sizeof...(Args) == S.param_count, "one argument per parameter of the statement");
    static_assert(is_prepared(S.name), "a statement every connection prepares (worker_statements)");
    try {
        return run_once(S.name, args...);
    } catch (const standby_refused&) {
        return run_once(S.name, args...);
    }
}

template <typename... Args>
pqxx::result pg_store::run_once(std::string_view name, const Args&... args) {
    auto lease = m_pool.acquire();
    auto& conn = open(lease);
    const auto started = std::chrono::steady_clock::now();
    auto result = translated(name, lease, m_gauges, [&] {
        pqxx::nontransaction tx{conn};
        return tx.exec_prepared(std::string{name}, args...);
    });
    if (m_gauges) {
        core::record_database_call(*m_gauges, std::chrono::duration_cast<std::chrono::microseconds>(
                                                  std::chrono::steady_clock::now() - started));
    }
    return result;
}

template <const auto& S, typename... Args>
core::result_code pg_store::run_call(const Args&... args) {
    return as_result(run<S>(args...).at(0)[S.column("result").data()]);
}

std::optional<std::string> pg_store::find_login_secret(std::string_view login) {
    const auto r = run<statements::find_login_secret>(text(login));
    if (r.empty()) return std::nullopt;
    const auto secret = r[0][statements::find_login_secret.column("shared_secret").data()].as<std::string>();
    return opened_secret(secret, login_secret_row(login));
}

core::result_code pg_store::authenticate(const core::audit_tag& tag, std::string_view login, std::string_view session_id,
                                         bool proven, std::chrono::seconds failure_window, int max_failures) {
    return run_call<statements::authenticate>(text(tag.request_id), text(tag.operation), text(login), text(session_id), proven,
                    seconds(failure_window), max_failures);
}

core::result_code pg_store::check_session(const core::audit_tag& tag, const core::session_ref& session,
                                          std::string_view app_id) {
    return run_call<statements::check_session>(text(tag.request_id), text(tag.operation), text(session.session_id),
                    seconds(session.ttl), text(app_id));
}

core::result_code pg_store::set_account_permits(const core::audit_tag& tag, const core::session_ref& session,
                                                bool payments, bool invoices, bool messages) {
    return run_call<statements::set_account_permits>(text(tag.request_id), text(tag.operation), text(session.session_id),
                    seconds(session.ttl), payments, invoices, messages);
}

core::result_code pg_store::set_contact_permits(const core::audit_tag& tag, const core::session_ref& session,
                                                std::string_view wmid, bool payments, bool invoices, bool messages,
                                                bool dont_use_confirmation) {
    return run_call<statements::set_contact_permits>(text(tag.request_id), text(tag.operation), text(session.session_id),
                    seconds(session.ttl), text(wmid), payments, invoices, messages, dont_use_confirmation);
}

core::code_lookup pg_store::find_transfer_code(const core::audit_tag& tag, const core::session_ref& session,
                                               std::int64_t tran_id) {
    return code_lookup_of(run<statements::find_code>(text(tag.request_id), text(tag.operation), text(session.session_id),
                              seconds(session.ttl), std::string{"transfer"}, tran_id, 0));
}

core::result_code pg_store::confirm_transfer(const core::audit_tag& tag, const core::coded_call& call,
                                             std::int64_t tran_id) {
    return run_call<statements::confirm_transfer>(text(tag.request_id), text(tag.operation), call.login_id, text(call.login),
                    tran_id, call.code_matches, call.max_attempts);
}

core::code_lookup pg_store::find_task_code(const core::audit_tag& tag, const core::session_ref& session,
                                           std::int32_t profile_id, std::int32_t task_id) {
    return code_lookup_of(run<statements::find_code>(text(tag.request_id), text(tag.operation), text(session.session_id),
                              seconds(session.ttl), std::string{"task"}, static_cast<std::int64_t>(profile_id), task_id));
}

core::result_code pg_store::confirm_task(const core::audit_tag& tag, const core::coded_call& call,
                                         std::int32_t profile_id, std::int32_t task_id) {
    return run_call<statements::confirm_task>(text(tag.request_id), text(tag.operation), call.login_id, text(call.login),
                    profile_id, task_id, call.code_matches, call.max_attempts);
}

core::result_code pg_store::topup(const core::audit_tag& tag, const core::session_ref& session,
                                  const core::topup_request& t) {
    return run_call<statements::topup>(text(tag.request_id), text(tag.operation), text(session.session_id), seconds(session.ttl),
                    text(t.purse), t.card_id, text(t.amount), text(t.max_amount), text(t.default_daily_limit));
}

core::result_code pg_store::rename_profile(const core::audit_tag& tag, const core::session_ref& session,
                                           std::int32_t profile_id, std::string_view name) {
    return run_call<statements::rename_profile>(text(tag.request_id), text(tag.operation), text(session.session_id),
                    seconds(session.ttl), profile_id, text(name));
}

core::result_code pg_store::subscribe_device(const core::audit_tag& tag, const core::session_ref& session,
                                             const core::device_subscription& d) {
    return run_call<statements::subscribe_device>(text(tag.request_id), text(tag.operation), text(session.session_id),
                    seconds(session.ttl), text(core::provider_name(d.push_provider)), text(d.push_service_user_id),
                    d.tag, d.locale);
}

std::optional<core::application_record> pg_store::find_application(std::string_view app_id) {
    const auto r = run<statements::find_application>(text(app_id));
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
    return run_call<statements::subscribe_app_device>(text(tag.request_id), text(tag.operation), text(app_id), text(user_id),
                    text(core::provider_name(d.push_provider)), text(d.push_service_user_id), d.tag, d.locale);
}

core::result_code pg_store::mark_sms_delivered(const core::audit_tag& tag, const core::session_ref& session,
                                               std::int32_t sms_id) {
    return run_call<statements::mark_sms_delivered>(text(tag.request_id), text(tag.operation), text(session.session_id),
                    seconds(session.ttl), sms_id);
}

core::result_code pg_store::audit_only(const core::audit_tag& tag, std::string_view login, std::string_view app_id,
                                       core::result_code result) {
    return run_call<statements::audit_only>(text(tag.request_id), text(tag.operation), text(login), text(app_id),
                    static_cast<int>(result));
}

bool pg_store::healthy() {
    auto lease = m_pool.acquire();
    try {
        pqxx::nontransaction{lease.connection()}.exec("SELECT 1");
        return true;
    } catch (...) {
        lease.mark_broken();
        return false;
    }
}

}  // namespace keeper::db
