#include "pool_gauges.hpp"

#include "core/pipeline/prometheus_text.hpp"

namespace keeper::pool {
namespace {

using core::prometheus::value;
using core::prometheus::write_one;
using core::prometheus::write_series;
template <typename T>
using series_line = core::prometheus::series_line<pool_gauges, T>;

constexpr series_line<std::int64_t> gauges[] = {
    {"keeper_start_time_seconds", "When the pool started, seconds since the epoch.", &pool_gauges::start_time_seconds},
    {"keeper_workers_configured", "Worker processes the configuration asks for.", &pool_gauges::workers_configured},
    {"keeper_workers_alive", "Worker processes running (retiring ones of a reload included).",
     &pool_gauges::workers_alive},
    {"keeper_worker_threads_busy", "Threads handling a request now.", &pool_gauges::threads_busy},
    {"keeper_requests_waiting", "Requests waiting for a worker's thread now.", &pool_gauges::requests_waiting},
};
constexpr series_line<std::uint64_t> counters[] = {
    {"keeper_requests_refused_total",
     "Requests refused on arrival (503, not applied): no thread would have been free within admission_wait_ms.",
     &pool_gauges::requests_refused},
    {"keeper_requests_refusals_held_total",
     "Of the refused requests, those answered a second late: the client asked again before its Retry-After ran out.",
     &pool_gauges::refusals_held},
};

}  // namespace

std::string format_pool_gauges(const pool_gauges& g) {
    std::string out;
    write_series(out, "gauge", gauges, g);
    write_series(out, "counter", counters, g);
    write_one(out, "keeper_worker_threads", "gauge",
              "Threads of all workers, each serving one FastCGI connection at a time.",
              std::to_string(g.threads_per_worker.load(std::memory_order_relaxed) *
                             g.workers_configured.load(std::memory_order_relaxed)));
    out +=
        "# HELP keeper_worker_replacements_total Workers that died and were replaced, by cause.\n"
        "# TYPE keeper_worker_replacements_total counter\n"
        "keeper_worker_replacements_total{cause=\"signal\"} " +
        value(g.worker_replacements[0]) + "\nkeeper_worker_replacements_total{cause=\"exit\"} " +
        value(g.worker_replacements[1]) + "\n";
    return out;
}

}  // namespace keeper::pool
