#pragma once
// core::store on PostgreSQL through libpqxx 6.4. A pool of connections per worker process, shared
// by its threads (connection_pool.hpp); every statement prepared once per connection
// (statements.hpp); each store call is one prepared statement in autocommit, calling one of the
// keeper_* functions that hold the operation's transaction. libpqxx errors are translated here,
// once, into core::store_error.
#include <atomic>
#include <chrono>
#include <cstddef>
#include <optional>
#include <string>

#include <memory>

#include "db/store/connection_pool.hpp"
#include "db/store/statement_watch.hpp"
#include "core/domain/store.hpp"
#include "db/secrets/key_file.hpp"

namespace keeper::db {

// Bounds set on every connection the store opens (PostgreSQL lock_timeout, statement_timeout), and
// a call's whole budget for the database: waits for a primary and the settling of an in-doubt call
// included. At most `waiting_calls` calls of the process wait at once; others fail at once, so
// threads stay free for the calls that need no database.
struct database_timeouts {
    std::chrono::milliseconds lock{2000};
    std::chrono::milliseconds statement{5000};
    std::chrono::milliseconds budget{10000};
    int waiting_calls = 12;
};

class pg_store final : public core::store {
public:
    // At most `connections` open at once; callers beyond that wait for one to be given back.
    // keys open the sealed shared secrets; without them only secrets still in clear can be read.
    // gauges (may be null): the pool's and the database's series of /metrics.
    explicit pg_store(std::string conninfo, std::size_t connections = 1, database_timeouts bounds = {},
                      std::shared_ptr<const key_file> keys = nullptr, core::runtime_gauges* gauges = nullptr);
    ~pg_store() override;

    std::optional<std::string> find_login_secret(std::string_view login, const core::deadline& until) override;
    core::result_code authenticate(const core::audit_tag& tag, std::string_view login, std::string_view session_id,
                                   bool proven, std::chrono::seconds failure_window, int max_failures) override;
    core::result_code check_session(const core::audit_tag& tag, const core::session_ref& session,
                                    std::string_view app_id) override;
    core::result_code set_account_permits(const core::audit_tag& tag, const core::session_ref& session, bool payments,
                                          bool invoices, bool messages) override;
    core::result_code set_contact_permits(const core::audit_tag& tag, const core::session_ref& session,
                                          std::string_view wmid, bool payments, bool invoices, bool messages,
                                          bool dont_use_confirmation) override;
    core::code_lookup find_transfer_code(const core::audit_tag& tag, const core::session_ref& session,
                                         std::int64_t tran_id) override;
    core::result_code confirm_transfer(const core::audit_tag& tag, const core::coded_call& call,
                                       std::int64_t tran_id) override;
    core::code_lookup find_task_code(const core::audit_tag& tag, const core::session_ref& session,
                                     std::int32_t profile_id, std::int32_t task_id) override;
    core::result_code confirm_task(const core::audit_tag& tag, const core::coded_call& call, std::int32_t profile_id,
                                   std::int32_t task_id) override;
    core::result_code topup(const core::audit_tag& tag, const core::session_ref& session,
                            const core::topup_request& topup) override;
    core::result_code rename_profile(const core::audit_tag& tag, const core::session_ref& session,
                                     std::int32_t profile_id, std::string_view name) override;
    core::result_code subscribe_device(const core::audit_tag& tag, const core::session_ref& session,
                                       const core::device_subscription& device) override;
    std::optional<core::application_record> find_application(std::string_view app_id,
                                                             const core::deadline& until) override;
    core::result_code subscribe_app_device(const core::audit_tag& tag, std::string_view app_id,
                                           std::string_view user_id, const core::device_subscription& device) override;
    core::result_code mark_sms_delivered(const core::audit_tag& tag, const core::session_ref& session,
                                         std::int32_t sms_id) override;
    core::result_code audit_only(const core::audit_tag& tag, std::string_view login, std::string_view app_id,
                                 core::result_code result) override;

    bool healthy() override;

private:
    // What a statement answered, or, for a call settled after its connection broke, the result its
    // audit row recorded (rows empty).
    struct answer {
        std::optional<pqxx::result> rows;
        core::result_code recorded = core::result_code::ok;
    };

    // The call a statement belongs to: its request id (empty for a read), whether nginx sent it
    // before, to a worker that died with it, and its deadline.
    struct call_ref {
        std::string_view request_id;
        bool retried;
        const core::deadline& until;
    };
    // Runs one prepared statement on a pooled connection, in autocommit, until it answers by the
    // call's deadline (docs/design.md, "In-doubt calls"). S is a handle of statements.hpp: the
    // arguments are its parameters, in order. call.request_id names the call's audit row; empty
    // for a read, which is simply run again whatever happened.
    template <const auto& S, typename... Args>
    answer run(call_ref call, const Args&... args);
    // One attempt, watched: cancelled at the call's cancel point, cut at its deadline.
    template <typename... Args>
    pqxx::result run_once(std::string_view name, call_ref call, const Args&... args);
    // A statement that writes an audit row: the call's frame (statements.hpp, call_frame) as its
    // first arguments, then args.
    template <const auto& S, typename Frame, typename... Args>
    answer run_framed(call_ref call, const Frame& frame, const Args&... args);
    // For the keeper_* functions that return the call's result code in their column "result":
    // the frame from tag, without a key, then args.
    template <const auto& S, typename... Args>
    core::result_code run_call(const core::audit_tag& tag, const Args&... args);
    // A write's statement: the frame from tag, with its Idempotency-Key, then args. A repeat of a
    // keyed call meets the recorded key and runs again with key_used, which answers the recorded
    // call.
    template <const auto& S, typename... Args>
    answer run_keyed(const core::audit_tag& tag, const Args&... args);
    template <const auto& S, typename... Args>
    core::result_code run_keyed_call(const core::audit_tag& tag, const Args&... args);

    // After a call's connection broke with its statement sent: ends the server process that ran it
    // (so the transaction can no longer commit), then reads the result its audit row recorded
    // (nullopt: the call did not happen). Throws core::outcome_unknown at the deadline.
    std::optional<core::result_code> settle(const backend_identity& backend, std::string_view request_id,
                                            const core::deadline& until);
    // Before a write nginx sent again after the worker that had it died: ends that worker's
    // server processes, then reads the result the first attempt recorded (nullopt: it did not
    // happen, the call runs). Throws core::outcome_unknown at the deadline.
    std::optional<core::result_code> settle_retried(std::string_view request_id, const core::deadline& until);
    // What settle and settle_retried share: end_first(conn) ends the first attempt's process. A
    // recorded result is answered only once it is on the synchronous standby (on_standby).
    template <typename EndFirst>
    std::optional<core::result_code> settle_with(EndFirst&& end_first, std::string_view request_id,
                                                 const core::deadline& until);
    // Whether every commit made so far, a settled call's included, is on the synchronous standby
    // (when there is one) by the deadline: the await_standby statement returned uninterrupted.
    bool on_standby(std::string_view request_id, const core::deadline& until);
    // Counts the call as answered "outcome unknown" and throws core::outcome_unknown.
    [[noreturn]] void give_up_unknown(std::string_view request_id, std::string_view why);
    // Sleeps before the next attempt, unless that would pass the cancel point or too many calls
    // wait already: then false.
    bool pause_before_retry(const core::deadline& until, int attempt);
    // The cancel point: what a statement must finish by to leave time to answer.
    core::deadline cancel_point(const core::deadline& until) const;

    static core::code_lookup code_lookup_of(const answer& a);

    // The stored secret, opened. Throws core::store_error when it is sealed and cannot be opened.
    std::string opened_secret(const std::string& stored, const std::string& row) const;

    connection_pool m_pool;
    statement_watch m_watch;
    database_timeouts m_bounds;
    std::atomic<int> m_waiting{0};
    std::shared_ptr<const key_file> m_keys;
    core::runtime_gauges* m_gauges;
};

}  // namespace keeper::db
