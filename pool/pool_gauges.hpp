#pragma once
// The pool's gauges and counters, for the questions asked during an incident: is the pool whole,
// is it saturated, does it refuse. Written by the supervisor (workers) and the workers (threads,
// admission); one block in memory the pool shares (pool_metrics.hpp), so the values are sums over
// all workers. Lock-free atomics only: safe across processes.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

namespace keeper::pool {

struct pool_gauges {
    static constexpr std::size_t exit_causes = 2;  // 0: killed by a signal, 1: exited by itself
    // The pool's processes, for the process_* series (process_probe.hpp): slot 0 the supervisor,
    // then a slot a worker (0: free). Room for the most workers and as many retiring in a reload.
    static constexpr std::size_t process_slots = 1 + 2 * 256;
    std::atomic<std::int32_t> process_ids[process_slots]{};
    std::atomic<std::int64_t> start_time_seconds{0};
    std::atomic<std::int64_t> workers_configured{0};
    std::atomic<std::int64_t> workers_alive{0};
    std::atomic<std::int64_t> threads_per_worker{0};
    std::atomic<std::int64_t> threads_busy{0};
    std::atomic<std::int64_t> requests_waiting{0};   // for a thread, in the workers' queues
    std::atomic<std::uint64_t> requests_refused{0};  // refused on arrival (admission.hpp)
    std::atomic<std::uint64_t> refusals_held{0};     // of those, held: asked again too soon (held_refusals.hpp)
    std::atomic<std::uint64_t> worker_replacements[exit_causes]{};
};

// The pool's series (keeper_start_time_seconds, the workers', their threads', the requests waiting,
// refused and held, and the workers replaced).
std::string format_pool_gauges(const pool_gauges& g);

}  // namespace keeper::pool
