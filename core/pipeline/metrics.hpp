#pragma once
// Request counters and durations for GET /metrics (Prometheus text format). One block lives in
// memory the pool shares with all its workers (pool/pool_metrics.hpp), so what any worker renders is
// the sum over all of them. Lock-free atomics only: safe across processes. The other parts of the
// pool write their own series (metrics_source); the router asks for them all at once.
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "core/pipeline/prometheus_text.hpp"
#include "core/pipeline/request_log.hpp"

namespace keeper::core {

struct metrics_block {
    static constexpr std::size_t op_slots = 16;  // table operations; the last slot is "none"
    static constexpr std::size_t transport_slots = transport_count;
    // 0: success without a result code (dateTime, string, pages); 1..13: result 0..12;
    // 14..23: fault kinds in fault_kind order.
    static constexpr std::size_t outcome_slots = 1 + (last_result_code + 1) + fault_kind_count;

    std::atomic<std::uint64_t> requests[op_slots][transport_slots][outcome_slots];
    std::atomic<std::uint64_t> duration_buckets[op_slots][prometheus::bucket_count];
    std::atomic<std::uint64_t> duration_sum_us[op_slots];
    // Calls answered with the result an earlier call with the same Idempotency-Key recorded.
    std::atomic<std::uint64_t> replays[op_slots];
};

static_assert(std::atomic<std::uint64_t>::is_always_lock_free, "shared-memory counters need lock-free atomics");

// What GET /metrics shows: each part of the pool writes its own series (pool/pool_metrics.hpp
// composes them), so that core holds no gauge of processes or connections.
class metrics_source {
public:
    virtual ~metrics_source() = default;
    virtual std::string text() const = 0;
};

void record_request(metrics_block& block, const request_log& log, std::chrono::microseconds took);
// The requests' series, and keeper_build_info.
std::string format_metrics(const metrics_block& block);
// keeper_database_synchronous_standby: 1 while the database names a synchronous standby, 0 while
// it names none (an acknowledgement is one copy); nothing when it did not answer.
std::string format_synchronous_standby(std::optional<bool> named);
// keeper_database_clock_offset_seconds: the database's clock minus this host's (docs/operations.md,
// "Clocks"); nothing when the database did not answer.
std::string format_database_clock(std::optional<std::chrono::microseconds> offset);

}  // namespace keeper::core
