#pragma once
// The database connections' gauges and counters, for the questions asked during an incident: is
// the database slow or gone, do calls wait for a connection, do they end in doubt. Written by every
// worker's store; one block in memory the pool shares (pool/pool_metrics.hpp), so the values are
// sums over all workers. Lock-free atomics only: safe across processes.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>

#include "core/pipeline/prometheus_text.hpp"

namespace keeper::db {

struct database_gauges {
    std::atomic<std::int64_t> connections_open{0};
    std::atomic<std::int64_t> calls_waiting{0};
    std::atomic<std::uint64_t> connect_failures{0};
    std::atomic<std::uint64_t> connections_lost{0};
    std::atomic<std::uint64_t> lock_timeouts{0};
    std::atomic<std::uint64_t> statement_timeouts{0};
    // Calls whose connection broke after their statement was sent (docs/design.md, "In-doubt calls"):
    // settled by their recorded result, run again because they had not happened, or not settled.
    std::atomic<std::uint64_t> in_doubt_recorded{0};
    std::atomic<std::uint64_t> in_doubt_rerun{0};
    std::atomic<std::uint64_t> outcome_unknown{0};
    // Calls that waited for a primary (none reachable, or a standby refused) and ran once one was.
    std::atomic<std::uint64_t> waited_for_primary{0};
    // One database call: its one statement, which is its whole transaction, commit included.
    std::atomic<std::uint64_t> call_buckets[core::prometheus::bucket_count]{};
    std::atomic<std::uint64_t> call_sum_us{0};
};

// A database call's duration into the histogram.
void record_database_call(database_gauges& g, std::chrono::microseconds took);

// The keeper_database_* series.
std::string format_database_gauges(const database_gauges& g);

}  // namespace keeper::db
