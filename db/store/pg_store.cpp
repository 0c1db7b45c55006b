#include "db/store/pg_store.hpp"

#include <pqxx/pqxx>

#include "db/store/connection_setup.hpp"
#include "db/store/session_key.hpp"
#include "db/store/statements.hpp"

namespace keeper::db {
namespace {

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

core::result_code as_result(const pqxx::field& f) { return static_cast<core::result_code>(f.as<int>()); }

// A look at a call's outcome waits for a stalled standby 3 s at most (2 s to its cancel point),
// then answers "pending": the client asks again, rather than hold a thread for the whole budget.
core::deadline standby_look_deadline(const core::deadline& until) {
    return core::deadline{std::min(until.at(), core::deadline::clock::now() + std::chrono::seconds{3})};
}

}  // namespace

// What a keyed call's frame carries as its fingerprint: the call's meaning (a SHA-256 that may
// hold a short protection code) keyed under each key of the key file, the current key's first,
// which the database records; a repeat matches any of them, so keys recorded before a rotation
// still match. Last the unkeyed digest, which the previous release recorded (docs/schema.md,
// "Releases"). Without a key file (tests), the unkeyed digest alone.
std::string pg_store::stored_fingerprints(std::string_view fingerprint) const {
    if (fingerprint.empty()) return {};
    std::string out;
    if (m_keys) {
        for (const auto& digest : m_keys->keyed_digests(fingerprint)) out += digest + ",";
    }
    return out + std::string{fingerprint};
}

pg_store::pg_store(std::string conninfo, std::size_t connections, database_timeouts bounds,
                   std::shared_ptr<const key_file> keys, database_gauges* gauges, call_record* calls)
    : m_calls(std::move(conninfo), connections, connection_setup(bounds), bounds, gauges, calls),
      m_keys(std::move(keys)) {}

pg_store::~pg_store() = default;

template <const auto& S, typename... Args>
statement_answer pg_store::write(const core::call_frame& frame, const Args&... args) {
    static_assert(call_frame_fields.size() + sizeof...(Args) == S.param_count,
                  "the frame, then one argument per parameter");
    static_assert(is_prepared(S.name), "a statement every connection prepares (worker_statements)");
    return m_calls.write(S.name, frame, stored_fingerprints(frame.fingerprint),
                         [&](pqxx::connection& conn, const call_frame_values& values) {
                             return values.apply([&](const auto&... f) {
                                 return pqxx::nontransaction{conn}.exec_prepared(std::string{S.name}, f..., args...);
                             });
                         });
}

template <const auto& S, typename... Args>
core::store_result pg_store::result_of(const core::call_frame& frame, const Args&... args) {
    const auto a = write<S>(frame, args...);
    return {a.rows ? as_result(a.rows->at(0)[S.column("result").data()]) : a.recorded, a.replayed};
}

template <const auto& S, typename... Args>
pqxx::result pg_store::read(const core::deadline& until, const Args&... args) {
    static_assert(sizeof...(Args) == S.param_count, "one argument per parameter of the statement");
    static_assert(is_prepared(S.name), "a statement every connection prepares (worker_statements)");
    return m_calls.read(S.name, until, [&](pqxx::connection& conn) {
        return pqxx::nontransaction{conn}.exec_prepared(std::string{S.name}, args...);
    });
}

// A code lookup's answer; settled after its connection broke, or replayed, only a final result
// (2, 3, 5) can have been recorded: the lookup itself writes nothing else.
core::code_lookup pg_store::code_lookup_of(const statement_answer& a) {
    constexpr const auto& s = statements::find_code;
    core::code_lookup out;
    if (!a.rows) {
        out.result = a.recorded;
        out.replayed = a.replayed;
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

std::string pg_store::opened_secret(const std::string& stored, const std::string& row) const {
    if (!is_sealed(stored)) return stored;  // still in clear: sealed by the next keeperctl rotate-key
    if (!m_keys) throw core::store_error("a sealed secret and no key to open it");
    try {
        return m_keys->open(stored, row);
    } catch (const key_error& e) {
        throw core::store_error(e.what());  // names the key id, never the secret
    }
}

std::optional<std::string> pg_store::find_login_secret(std::string_view login, const core::deadline& until) {
    const auto r = read<statements::find_login_secret>(until, text(login));
    if (r.empty()) return std::nullopt;
    const auto secret = r[0][statements::find_login_secret.column("shared_secret").data()].as<std::string>();
    return opened_secret(secret, login_secret_row(login));
}

// One statement on one connection reads, decides and commits (db/functions/keeper_decide_call.sql):
// its commit returns once the synchronous standby holds what it answers. A commit whose wait for the
// standby was cut (a stalled standby, by the look's own deadline) is not an answer: "pending".
core::call_record pg_store::find_call(const core::session_ref& session, std::string_view request_id,
                                      core::utc_time sent, core::utc_time final, const core::deadline& until) {
    constexpr const auto& s = statements::decide_call;
    core::call_record out;
    const auto rows = m_calls.look(s.name, standby_look_deadline(until), [&](pqxx::connection& conn) {
        return pqxx::nontransaction{conn}.exec_prepared(std::string{s.name}, session_key(session.session_id),
                                                        seconds(session.ttl), text(request_id),
                                                        core::format_date_time(sent), core::format_date_time(final));
    });
    if (!rows) {
        out.session = core::result_code::ok;  // a session the look found valid: it got as far as the commit
        out.undecided = std::chrono::milliseconds{1000};
        return out;
    }
    const auto row = rows->at(0);
    out.session = as_result(row[s.column("code").data()]);
    if (out.session != core::result_code::ok) return out;
    out.undecided = std::chrono::milliseconds{row[s.column("wait_ms").data()].as<int>()};
    if (row[s.column("outcome").data()].as<std::string>() == "recorded") {
        out.result = as_result(row[s.column("result").data()]);
        out.at = row[s.column("at").data()].as<std::string>();
    }
    return out;
}

core::store_result pg_store::authenticate(const core::call_frame& frame, std::string_view login,
                                          std::string_view session_id, bool proven, std::chrono::seconds failure_window,
                                          int max_failures) {
    return result_of<statements::authenticate>(frame, text(login), session_key(session_id), proven,
                                               seconds(failure_window), max_failures);
}

core::store_result pg_store::check_session(const core::call_frame& frame, const core::session_ref& session,
                                           std::string_view app_id) {
    return result_of<statements::check_session>(frame, session_key(session.session_id), seconds(session.ttl),
                                                text(app_id));
}

core::store_result pg_store::set_account_permits(const core::call_frame& frame, const core::session_ref& session,
                                                 bool payments, bool invoices, bool messages) {
    return result_of<statements::set_account_permits>(frame, session_key(session.session_id), seconds(session.ttl),
                                                      payments, invoices, messages);
}

core::store_result pg_store::set_contact_permits(const core::call_frame& frame, const core::session_ref& session,
                                                 std::string_view wmid, bool payments, bool invoices, bool messages,
                                                 bool dont_use_confirmation) {
    return result_of<statements::set_contact_permits>(frame, session_key(session.session_id), seconds(session.ttl),
                                                      text(wmid), payments, invoices, messages, dont_use_confirmation);
}

core::code_lookup pg_store::find_transfer_code(const core::call_frame& frame, const core::session_ref& session,
                                               std::int64_t tran_id) {
    return code_lookup_of(write<statements::find_code>(frame, session_key(session.session_id), seconds(session.ttl),
                                                       std::string{"transfer"}, tran_id, 0));
}

core::store_result pg_store::confirm_transfer(const core::call_frame& frame, const core::coded_call& call,
                                              std::int64_t tran_id) {
    return result_of<statements::confirm_transfer>(frame, call.login_id, tran_id, call.code_matches, call.max_attempts);
}

core::code_lookup pg_store::find_task_code(const core::call_frame& frame, const core::session_ref& session,
                                           std::int32_t profile_id, std::int32_t task_id) {
    return code_lookup_of(write<statements::find_code>(frame, session_key(session.session_id), seconds(session.ttl),
                                                       std::string{"task"}, static_cast<std::int64_t>(profile_id),
                                                       task_id));
}

core::store_result pg_store::confirm_task(const core::call_frame& frame, const core::coded_call& call,
                                          std::int32_t profile_id, std::int32_t task_id) {
    return result_of<statements::confirm_task>(frame, call.login_id, profile_id, task_id, call.code_matches,
                                               call.max_attempts);
}

core::store_result pg_store::topup(const core::call_frame& frame, const core::session_ref& session,
                                   const core::topup_request& t) {
    return result_of<statements::topup>(frame, session_key(session.session_id), seconds(session.ttl), text(t.purse),
                                        t.card_id, text(t.amount), text(t.max_amount), text(t.default_daily_limit));
}

core::store_result pg_store::rename_profile(const core::call_frame& frame, const core::session_ref& session,
                                            std::int32_t profile_id, std::string_view name) {
    return result_of<statements::rename_profile>(frame, session_key(session.session_id), seconds(session.ttl),
                                                 profile_id, text(name));
}

core::store_result pg_store::subscribe_device(const core::call_frame& frame, const core::session_ref& session,
                                              const core::device_subscription& d) {
    return result_of<statements::subscribe_device>(frame, session_key(session.session_id), seconds(session.ttl),
                                                   text(core::provider_name(d.push_provider)),
                                                   text(d.push_service_user_id), d.tag, d.locale);
}

std::optional<core::application_record> pg_store::find_application(std::string_view app_id,
                                                                   const core::deadline& until) {
    constexpr const auto& s = statements::find_application;
    const auto r = read<s>(until, text(app_id));
    if (r.empty()) return std::nullopt;
    const auto row = r[0];
    const auto provider = core::provider_from_name(row[s.column("push_provider").data()].as<std::string>());
    const auto secret = row[s.column("shared_secret").data()].as<std::string>();
    return core::application_record{opened_secret(secret, application_secret_row(app_id)),
                                    provider.value_or(core::provider::Undefined),
                                    row[s.column("enabled").data()].as<bool>()};
}

core::store_result pg_store::subscribe_app_device(const core::call_frame& frame, std::string_view app_id,
                                                  std::string_view user_id, const core::device_subscription& d,
                                                  bool proven, const core::app_guard& guard) {
    return result_of<statements::subscribe_app_device>(
        frame, text(app_id), text(user_id), text(core::provider_name(d.push_provider)), text(d.push_service_user_id),
        d.tag, d.locale, proven, seconds(guard.window), guard.max_failures);
}

core::store_result pg_store::mark_sms_delivered(const core::call_frame& frame, const core::session_ref& session,
                                                std::int32_t sms_id) {
    return result_of<statements::mark_sms_delivered>(frame, session_key(session.session_id), seconds(session.ttl),
                                                     sms_id);
}

core::store_result pg_store::audit_only(const core::call_frame& frame, std::string_view login, std::string_view app_id,
                                        core::result_code result) {
    // The login as the call named it: keeper_audit finds its id.
    return result_of<statements::audit_only>(frame, std::optional<std::int64_t>{}, none_if_empty(login),
                                             none_if_empty(app_id), static_cast<int>(result));
}

bool pg_store::healthy() {
    return m_calls
        .answer([](pqxx::connection& conn) {
            return pqxx::nontransaction{conn}.exec_prepared(std::string{statements::ping.name});
        })
        .has_value();
}

std::optional<bool> pg_store::names_synchronous_standby() {
    const auto rows = m_calls.answer([](pqxx::connection& conn) {
        return pqxx::nontransaction{conn}.exec_prepared(std::string{statements::synchronous_standby.name});
    });
    if (!rows || rows->size() != 1) return std::nullopt;
    return (*rows)[0][0].as<bool>();
}

// The database's reading set against the middle of the round trip that brought it.
std::optional<std::chrono::microseconds> pg_store::database_clock_offset() {
    using clock = std::chrono::system_clock;
    clock::time_point sent;
    clock::time_point answered;
    const auto rows = m_calls.answer([&](pqxx::connection& conn) {
        sent = clock::now();
        auto r = pqxx::nontransaction{conn}.exec_prepared(std::string{statements::database_clock.name});
        answered = clock::now();
        return r;
    });
    if (!rows || rows->size() != 1) return std::nullopt;
    const auto middle = sent + (answered - sent) / 2;
    const std::chrono::microseconds database{(*rows)[0][0].as<std::int64_t>()};
    return database - std::chrono::duration_cast<std::chrono::microseconds>(middle.time_since_epoch());
}

bool pg_store::takes_writes() {
    const auto rows = m_calls.answer([](pqxx::connection& conn) {
        return pqxx::nontransaction{conn}.exec_prepared(std::string{statements::writable.name});
    });
    return rows && rows->size() == 1 && (*rows)[0][0].as<bool>();
}

}  // namespace keeper::db
