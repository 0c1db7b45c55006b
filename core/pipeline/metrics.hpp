#pragma once
// Request counters and durations for GET /metrics (Prometheus text format). One block lives in
// memory the pool shares with all its workers (fcgi/shared_memory.hpp), so what any worker renders is
// the sum over all of them. Lock-free atomics only: safe across processes.
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "core/pipeline/request_log.hpp"

namespace keeper::core {

// The pool and its database connections, for the questions asked during an incident: is the pool
// whole, is it saturated, is the database slow or gone. Written by the supervisor (workers), the
// workers (threads) and their stores (database); gauges are sums over all workers.
struct runtime_gauges {
    static constexpr std::size_t exit_causes = 2;  // 0: killed by a signal, 1: exited by itself
    // The pool's processes, for the process_* series: slot 0 the supervisor, then a slot a worker
    // (0: free). Room for the most workers and as many retiring in a reload.
    static constexpr std::size_t process_slots = 1 + 2 * 256;
    std::atomic<std::int32_t> process_ids[process_slots]{};
    std::atomic<std::int64_t> start_time_seconds{0};
    std::atomic<std::int64_t> workers_configured{0};
    std::atomic<std::int64_t> workers_alive{0};
    std::atomic<std::int64_t> threads_per_worker{0};
    std::atomic<std::int64_t> threads_busy{0};
    std::atomic<std::int64_t> requests_waiting{0};   // for a thread, in the workers' queues
    std::atomic<std::uint64_t> requests_refused{0};  // refused on arrival (fcgi/admission.hpp)
    std::atomic<std::uint64_t> refusals_held{0};     // of those, held: asked again too soon (fcgi/held_refusals.hpp)
    std::atomic<std::uint64_t> worker_replacements[exit_causes]{};
    std::atomic<std::int64_t> db_connections_open{0};
    std::atomic<std::int64_t> db_calls_waiting{0};
    std::atomic<std::uint64_t> db_connect_failures{0};
    std::atomic<std::uint64_t> db_connections_lost{0};
    std::atomic<std::uint64_t> db_lock_timeouts{0};
    std::atomic<std::uint64_t> db_statement_timeouts{0};
    // Calls whose connection broke after their statement was sent (docs/design.md, "In-doubt calls"):
    // settled by their recorded result, run again because they had not happened, or not settled.
    std::atomic<std::uint64_t> db_in_doubt_recorded{0};
    std::atomic<std::uint64_t> db_in_doubt_rerun{0};
    std::atomic<std::uint64_t> db_outcome_unknown{0};
    // Calls that waited for a primary (none reachable, or a standby refused) and ran once one was.
    std::atomic<std::uint64_t> db_waited_for_primary{0};
    // One database call: its one statement, which is its whole transaction, commit included.
    std::atomic<std::uint64_t> db_call_buckets[12]{};  // bounds as metrics_block::bucket_bounds, last: above
    std::atomic<std::uint64_t> db_call_sum_us{0};
};

// A database call's duration into the histogram.
void record_database_call(runtime_gauges& g, std::chrono::microseconds took);

struct metrics_block {
    static constexpr std::size_t op_slots = 16;  // table operations; the last slot is "none"
    static constexpr std::size_t transport_slots = transport_count;
    // 0: success without a result code (dateTime, string, pages); 1..13: result 0..12;
    // 14..23: fault kinds in fault_kind order.
    static constexpr std::size_t outcome_slots = 1 + (last_result_code + 1) + fault_kind_count;
    static constexpr std::array<double, 11> bucket_bounds{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
                                                          0.05,   0.1,   0.25,   0.5,   1.0};

    std::atomic<std::uint64_t> requests[op_slots][transport_slots][outcome_slots];
    std::atomic<std::uint64_t> duration_buckets[op_slots][bucket_bounds.size() + 1];  // last: above all bounds
    std::atomic<std::uint64_t> duration_sum_us[op_slots];
    // Calls answered with the result an earlier call with the same Idempotency-Key recorded.
    std::atomic<std::uint64_t> replays[op_slots];
    runtime_gauges runtime;
};
static_assert(std::size(runtime_gauges{}.db_call_buckets) == metrics_block::bucket_bounds.size() + 1);

static_assert(std::atomic<std::uint64_t>::is_always_lock_free, "shared-memory counters need lock-free atomics");

void record_request(metrics_block& block, const request_log& log, std::chrono::microseconds took);
std::string format_metrics(const metrics_block& block);
// keeper_database_synchronous_standby: 1 while the database names a synchronous standby, 0 while
// it names none (an acknowledgement is one copy); nothing when it did not answer.
std::string format_synchronous_standby(std::optional<bool> named);
// keeper_database_clock_offset_seconds: the database's clock minus this host's (docs/operations.md,
// "Clocks"); nothing when the database did not answer.
std::string format_database_clock(std::optional<std::chrono::microseconds> offset);

}  // namespace keeper::core
