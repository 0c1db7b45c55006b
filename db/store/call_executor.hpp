#pragma once
// The path of one call through the database (docs/design.md, "Where a call's steps live"), top to
// bottom:
//   write():   a keyed call's first attempt; met its key: again with key_used (a replay, or the key
//              with other parameters); a replay acknowledged once the standby has it.
//   run():     a retried call settled first; then the call's statement until it answers by the
//              deadline: again when nothing was done (no primary yet), settled when its
//              connection broke with the statement sent.
//   once():    one attempt on one leased, watched connection (statement_lease.hpp).
//   settling:  the first attempt's server process ended, its recorded result read, and
//              acknowledged only once on the synchronous standby (in_doubt_settling.cpp).
// The store's adapters (pg_store.cpp) give it a statement as a function of a connection (and, for
// a write, of the call's frame) and read the rows it answers.
#include <atomic>
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include <pqxx/connection>
#include <pqxx/result>

#include "core/api/result_code.hpp"
#include "core/domain/deadline.hpp"
#include "core/domain/store.hpp"
#include "db/store/database_gauges.hpp"
#include "db/store/backend_identity.hpp"
#include "db/store/call_record.hpp"
#include "db/store/connection_pool.hpp"
#include "db/store/statement_watch.hpp"
#include "db/store/statements.hpp"

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

// What a call's statement answered: its rows, or, for a call settled after its connection broke or
// answered as a keyed repeat, the result its audit row or key recorded (rows empty).
struct statement_answer {
    std::optional<pqxx::result> rows;
    core::result_code recorded = core::result_code::ok;
    bool replayed = false;  // a keyed repeat: nothing changed now (docs/api-decisions.md, "Idempotency-Key")
};

class call_executor {
public:
    using read_statement = std::function<pqxx::result(pqxx::connection&)>;
    using write_statement = std::function<pqxx::result(pqxx::connection&, const call_frame_values&)>;

    // conninfo, connections, prepare: the pool's (connection_pool.hpp). gauges may be null; so may
    // calls, the host's record of calls in flight: without it every attempt takes the call's lock.
    call_executor(std::string conninfo, std::size_t connections, connection_pool::preparer prepare,
                  database_timeouts bounds, database_gauges* gauges, call_record* calls = nullptr);

    // A read: run again, whatever happened, until it answers or the deadline comes.
    pqxx::result read(std::string_view name, const core::deadline& until, const read_statement& statement);
    // A read whose statement commits what its answer rests on (a decision, a wait for the standby):
    // its rows, or nullopt when it answered but its commit's wait for the synchronous standby was
    // cut. Run again like a read until then.
    std::optional<pqxx::result> look(std::string_view name, const core::deadline& until,
                                     const read_statement& statement);
    // A write of the call whose frame this is: its Idempotency-Key, its retry, its deadline.
    // fingerprint: the digests the database records for a keyed call (pg_store::stored_fingerprints).
    // Throws core::not_applied, core::outcome_unknown, core::key_reused, core::key_in_flight, or
    // core::store_error.
    statement_answer write(std::string_view name, const core::call_frame& frame, std::string_view fingerprint,
                           const write_statement& statement);
    // The statement's rows when the database answers it now, without waiting for a primary;
    // nullopt when it does not. Never throws.
    std::optional<pqxx::result> answer(const read_statement& statement);
    // Whether every commit made so far, a settled call's or one a look found, is on the synchronous
    // standby (when there is one) by the deadline: the await_standby statement returned
    // uninterrupted. Never throws.
    bool on_standby(std::string_view request_id, const core::deadline& until);

private:
    using bound_statement = std::function<pqxx::result(pqxx::connection&)>;
    // The call a statement belongs to: its request id (empty for a read), whether nginx sent it
    // before (on a connection that broke), and its deadline; host_recorded, for a first attempt
    // the host's record may hold, is where once() says whether it does (the frame's value);
    // commits: a read that commits what its answer rests on (look()).
    struct call_ref {
        std::string_view request_id;
        bool retried;
        const core::deadline& until;
        bool* host_recorded = nullptr;
        bool commits = false;
    };
    class host_record;

    statement_answer attempt(std::string_view name, const call_frame_values& values, const write_statement& statement);
    statement_answer run(std::string_view name, call_ref call, const bound_statement& statement);
    statement_answer run_until_answered(std::string_view name, call_ref call, const bound_statement& statement);
    pqxx::result once(std::string_view name, call_ref call, const bound_statement& statement);

    // in_doubt_settling.cpp. After a call's connection broke with its statement sent: ends the
    // server process that ran it (so the transaction can no longer commit), then reads the result
    // its audit row recorded (nullopt: the call did not happen).
    std::optional<core::result_code> settle(const backend_identity& backend, std::string_view request_id,
                                            const core::deadline& until);
    // Before a write nginx sent again (its first connection broke, the worker alive or dead): ends
    // the server process of the first attempt the host's record holds, those holding the call's
    // claim and those dead workers of this host left, then reads the result an attempt recorded.
    std::optional<core::result_code> settle_retried(std::string_view request_id, const core::deadline& until,
                                                    const std::optional<backend_identity>& first_attempt);
    // What both share: end_first ends the first attempt's process. A recorded result is answered
    // only once it is on the synchronous standby. Throws core::outcome_unknown at the deadline.
    std::optional<core::result_code> settle_with(const std::function<bool(pqxx::connection&)>& end_first,
                                                 std::string_view request_id, const core::deadline& until);
    // Counts the call as answered "outcome unknown" and throws core::outcome_unknown.
    [[noreturn]] void give_up_unknown(std::string_view request_id, std::string_view why);
    // Sleeps before the next attempt, unless that would pass the cancel point or too many calls
    // wait already: then false.
    bool pause_before_retry(const core::deadline& until, int attempt);
    // The cancel point: what a statement must finish by to leave time to answer.
    core::deadline cancel_point(const core::deadline& until) const;
    void count(std::atomic<std::uint64_t> database_gauges::*counter);

    connection_pool m_pool;
    statement_watch m_watch;
    database_timeouts m_bounds;
    std::atomic<int> m_waiting{0};
    database_gauges* m_gauges;
    call_record* m_calls;
};

// Why a commit the call made, or found recorded, is not acknowledged (docs/design.md, "No
// acknowledgement before replication"); for the log's detail.
inline constexpr std::string_view not_on_standby =
    "its commit was not on the synchronous standby by the call's deadline";

}  // namespace keeper::db
