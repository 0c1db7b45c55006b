#include "db/store/call_executor.hpp"

#include <pqxx/pqxx>

#include <algorithm>
#include <thread>
#include <type_traits>

#include "db/store/sql_errors.hpp"
#include "db/store/statement_lease.hpp"

namespace keeper::db {
namespace {

struct field_count {
    template <typename... F>
    std::integral_constant<std::size_t, sizeof...(F)> operator()(const F&...) const {
        return {};
    }
};
static_assert(decltype(std::declval<const call_frame_values&>().apply(field_count{}))::value ==
                  call_frame_fields.size(),
              "call_frame_values passes every field of statements.hpp's call_frame_fields");

}  // namespace

// A first attempt in the host's record for as long as its statement runs (call_record.hpp),
// with the server process that runs it; the frame says whether it is, so keeper_claim takes the
// call's lock for one that is not. Each statement of the call is recorded anew: a call run again
// after its connection broke finds the mark of a retry that came meanwhile.
class call_executor::host_record {
public:
    host_record(call_record* calls, const call_ref& call, const backend_identity& backend)
        : m_calls(calls), m_request_id(call.request_id) {
        if (!call.host_recorded) return;
        m_recorded = m_calls->begin_first(m_request_id, backend, call.until);
        *call.host_recorded = m_recorded;
    }
    ~host_record() {
        if (m_recorded) m_calls->end_first(m_request_id);
    }
    host_record(const host_record&) = delete;
    host_record& operator=(const host_record&) = delete;

private:
    call_record* m_calls;
    std::string_view m_request_id;
    bool m_recorded = false;
};

call_executor::call_executor(std::string conninfo, std::size_t connections, connection_pool::preparer prepare,
                             database_timeouts bounds, database_gauges* gauges, call_record* calls)
    : m_pool(std::move(conninfo), connections, std::move(prepare), gauges),
      m_bounds(bounds),
      m_gauges(gauges),
      m_calls(calls) {}

pqxx::result call_executor::read(std::string_view name, const core::deadline& until, const read_statement& statement) {
    return *run(name, {{}, false, until}, statement).rows;
}

std::optional<pqxx::result> call_executor::look(std::string_view name, const core::deadline& until,
                                                const read_statement& statement) {
    try {
        return *run(name, {{}, false, until, nullptr, true}, statement).rows;
    } catch (const standby_wait_cut&) {
        return std::nullopt;
    }
}

statement_answer call_executor::write(std::string_view name, const core::call_frame& frame,
                                      std::string_view fingerprint, const write_statement& statement) {
    try {
        if (frame.idempotency_key.empty()) return attempt(name, {frame, {}}, statement);
        try {
            try {
                return attempt(name, {frame, fingerprint}, statement);
            } catch (const unique_violation&) {
                // Most likely the key index: the recorded call (a replay or KI422), or this call again
                // if the recorded one rolled back since.
                return attempt(name, {frame, fingerprint, true}, statement);
            }
        } catch (const lock_timed_out&) {
            // Nothing changed, and the key makes a repeat safe: the client is told to repeat it (409).
            throw core::key_in_flight();
        }
    } catch (const replay& r) {
        // The recorded call (by its key, or another attempt of this call by its request id) may be
        // one whose commit was made visible before the standby had it (its server process ended
        // while it waited): answered once the standby holds it.
        if (!on_standby(frame.request_id, frame.until)) give_up_unknown(frame.request_id, not_on_standby);
        return {std::nullopt, r.result, r.keyed};
    }
}

statement_answer call_executor::attempt(std::string_view name, const call_frame_values& values,
                                        const write_statement& statement) {
    // A retried call's first attempt is settled once, before it runs at all.
    const bool retried = values.frame.retried && !values.key_used;
    call_frame_values sent = values;
    // A call renamed for a client's trace (keeper_claim) is not found by its worker's name once
    // that worker is dead, so it holds the call's lock instead of being recorded.
    const bool client_trace = !values.frame.trace_id.empty() && values.frame.trace_id != values.frame.request_id;
    const bool recordable = m_calls && !values.frame.retried && !client_trace;
    const call_ref call{values.frame.request_id, retried, values.frame.until,
                        recordable ? &sent.host_recorded : nullptr};
    return run(name, call, [&](pqxx::connection& conn) { return statement(conn, sent); });
}

// A call nginx sent again is settled before it runs: the attempt holding its claim ended, the
// recorded result answered. Its first attempt may have started, and one not yet at its claim may
// still commit, so it never answers "not applied": what it cannot settle or run is outcome unknown.
statement_answer call_executor::run(std::string_view name, call_ref call, const bound_statement& statement) {
    if (!call.retried || call.request_id.empty()) return run_until_answered(name, call, statement);
    const auto mark = m_calls ? m_calls->mark_retried(call.request_id, call.until) : call_record::retry_mark{};
    for (int attempt = 0;; ++attempt) {
        if (const auto recorded = settle_retried(call.request_id, call.until, mark.first_attempt)) {
            count(&database_gauges::in_doubt_recorded);
            return {std::nullopt, *recorded};
        }
        try {
            return run_until_answered(name, call, statement);
        } catch (const lock_timed_out& e) {
            // Most often an attempt that took the call's claim after the settling: ended in turn.
            if (!pause_before_retry(call.until, attempt)) give_up_unknown(call.request_id, e.what());
        } catch (const decided_not_applied&) {
            throw;  // no attempt of it commits, ever: "not applied" is the truth
        } catch (const core::not_applied& e) {
            give_up_unknown(call.request_id, e.what());
        }
    }
}

// Runs a statement until it answers, by the call's deadline (docs/design.md, "In-doubt calls"):
// again when nothing was done (no primary yet, a standby refused), and when the connection broke
// with the statement sent: a read again at once, a call once it is known not to have happened, or
// its recorded result once it is known to have happened and to be on the synchronous standby.
statement_answer call_executor::run_until_answered(std::string_view name, call_ref call,
                                                   const bound_statement& statement) {
    const bool writes = !call.request_id.empty();
    bool waited_for_primary = false;  // counted once the call answers (a rerun after a doubt is not a wait)
    for (int attempt = 0;; ++attempt) {
        try {
            auto rows = once(name, call, statement);
            if (waited_for_primary) count(&database_gauges::waited_for_primary);
            return {std::move(rows)};
        } catch (const not_done& e) {
            if (!pause_before_retry(call.until, attempt)) throw core::not_applied(e.what());
            waited_for_primary = true;
        } catch (const in_doubt& e) {
            if (!writes) {
                if (!pause_before_retry(call.until, attempt)) throw core::not_applied(e.what());
                continue;
            }
            if (const auto recorded = settle(e.backend, call.request_id, call.until)) {
                count(&database_gauges::in_doubt_recorded);
                return {std::nullopt, *recorded};
            }
            count(&database_gauges::in_doubt_rerun);
        }
    }
}

pqxx::result call_executor::once(std::string_view name, call_ref call, const bound_statement& statement) {
    const auto cancel_at = cancel_point(call.until);
    statement_lease lease{m_pool, m_watch, cancel_at, call.until, m_gauges};
    if (cancel_at.passed()) throw core::not_applied("the call's deadline came before its statement was sent");
    const host_record recorded{m_calls, call, lease.backend()};
    const auto started = std::chrono::steady_clock::now();
    auto result = lease.run(name, statement);
    if (m_gauges) {
        record_database_call(*m_gauges, std::chrono::duration_cast<std::chrono::microseconds>(
                                            std::chrono::steady_clock::now() - started));
    }
    // A write that answered although it was cancelled had committed, and its commit stopped
    // waiting for the synchronous standby: on the primary only, so neither done nor undone.
    if (lease.interrupted()) {
        if (!call.request_id.empty()) give_up_unknown(call.request_id, not_on_standby);
        if (call.commits) throw standby_wait_cut{};
    }
    return result;
}

std::optional<pqxx::result> call_executor::answer(const read_statement& statement) {
    try {
        const auto until = core::deadline::after(m_bounds.statement);
        statement_lease lease{m_pool, m_watch, until, until, m_gauges};
        return lease.run("a health check", statement);
    } catch (const core::store_error&) {
        return std::nullopt;
    }
}

void call_executor::give_up_unknown(std::string_view request_id, std::string_view why) {
    count(&database_gauges::outcome_unknown);
    throw core::outcome_unknown(request_id, why);
}

core::deadline call_executor::cancel_point(const core::deadline& until) const {
    // A tenth of the budget, at most a second: the cancel request's round trip, the answer's writing.
    return until.less(std::min(std::chrono::milliseconds{1000}, m_bounds.budget / 10));
}

bool call_executor::pause_before_retry(const core::deadline& until, int attempt) {
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

void call_executor::count(std::atomic<std::uint64_t> database_gauges::*counter) {
    if (m_gauges) (m_gauges->*counter).fetch_add(1, std::memory_order_relaxed);
}

}  // namespace keeper::db
