#include "core/pipeline/metrics.hpp"

#include <cstdio>

#include "core/domain/operation_table.hpp"
#include "core/wire/transport_table.hpp"

namespace keeper::core {
namespace {

constexpr std::size_t none_slot = metrics_block::op_slots - 1;
constexpr std::size_t fault_base = 1 + last_result_code + 1;  // after "ok" and the result codes

std::size_t op_slot(const operation* op) {
    if (!op) return none_slot;
    const auto& table = operations();
    const auto index = static_cast<std::size_t>(op - table.data());
    return index < table.size() && index < none_slot ? index : none_slot;
}

std::size_t outcome_slot(const request_log& log) {
    if (log.fault) return fault_base + static_cast<std::size_t>(*log.fault);
    if (log.result && *log.result >= 0 && *log.result <= last_result_code)
        return 1 + static_cast<std::size_t>(*log.result);
    return 0;
}

std::string op_label(std::size_t slot) {
    const auto& table = operations();
    if (slot >= table.size()) return "group=\"-\",operation=\"-\"";
    return "group=\"" + std::string{group_name(table[slot].group)} + "\",operation=\"" + std::string{table[slot].name} +
           "\"";
}

std::string outcome_label(std::size_t slot) {
    if (slot == 0) return "ok";
    if (slot < fault_base) return "result_" + std::to_string(slot - 1);
    return "fault_" + std::string{fault_kind_name(static_cast<fault_kind>(slot - fault_base))};
}

std::string number(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

void write_requests(std::string& out, const metrics_block& b) {
    out +=
        "# HELP keeper_requests_total Requests by operation, transport and outcome (result code or fault), all "
        "workers.\n"
        "# TYPE keeper_requests_total counter\n";
    for (std::size_t o = 0; o < metrics_block::op_slots; ++o)
        for (std::size_t t = 0; t < metrics_block::transport_slots; ++t)
            for (std::size_t r = 0; r < metrics_block::outcome_slots; ++r) {
                const auto n = b.requests[o][t][r].load(std::memory_order_relaxed);
                if (n == 0) continue;
                out += "keeper_requests_total{" + op_label(o) + ",transport=\"" +
                       std::string{transport_name(static_cast<transport>(t))} + "\",outcome=\"" + outcome_label(r) +
                       "\"} " + std::to_string(n) + "\n";
            }
}

void write_faults(std::string& out, const metrics_block& b) {
    out +=
        "# HELP keeper_faults_total Requests that ended in a fault, by kind, all workers.\n"
        "# TYPE keeper_faults_total counter\n";
    for (std::size_t r = fault_base; r < metrics_block::outcome_slots; ++r) {
        std::uint64_t n = 0;
        for (std::size_t o = 0; o < metrics_block::op_slots; ++o)
            for (std::size_t t = 0; t < metrics_block::transport_slots; ++t)
                n += b.requests[o][t][r].load(std::memory_order_relaxed);
        out += "keeper_faults_total{kind=\"" + std::string{fault_kind_name(static_cast<fault_kind>(r - fault_base))} +
               "\"} " + std::to_string(n) + "\n";
    }
}

void write_replays(std::string& out, const metrics_block& b) {
    out +=
        "# HELP keeper_idempotent_replays_total Calls answered with the result an earlier call with the same "
        "Idempotency-Key recorded, by operation, all workers.\n"
        "# TYPE keeper_idempotent_replays_total counter\n";
    for (std::size_t o = 0; o < metrics_block::op_slots; ++o) {
        const auto n = b.replays[o].load(std::memory_order_relaxed);
        if (n != 0) out += "keeper_idempotent_replays_total{" + op_label(o) + "} " + std::to_string(n) + "\n";
    }
}

// One histogram's series (buckets cumulative, then sum and count), labelled with `labels` ("" for
// none); nothing when it is empty and skip_empty. Both histograms share metrics_block's bounds.
void write_histogram(std::string& out, const std::string& name, const std::string& labels,
                     const std::atomic<std::uint64_t>* buckets, const std::atomic<std::uint64_t>& sum_us,
                     bool skip_empty) {
    const auto with = [&](const std::string& extra) {
        const auto all = labels.empty() ? extra : extra.empty() ? labels : labels + "," + extra;
        return all.empty() ? std::string{} : "{" + all + "}";
    };
    std::uint64_t cumulative = 0;
    std::string lines;
    for (std::size_t i = 0; i <= metrics_block::bucket_bounds.size(); ++i) {
        cumulative += buckets[i].load(std::memory_order_relaxed);
        const auto le = i < metrics_block::bucket_bounds.size() ? number(metrics_block::bucket_bounds[i]) : "+Inf";
        lines += name + "_bucket" + with("le=\"" + le + "\"") + " " + std::to_string(cumulative) + "\n";
    }
    if (skip_empty && cumulative == 0) return;
    const double sum = static_cast<double>(sum_us.load(std::memory_order_relaxed)) / 1e6;
    out += lines + name + "_sum" + with("") + " " + number(sum) + "\n" + name + "_count" + with("") + " " +
           std::to_string(cumulative) + "\n";
}

void write_durations(std::string& out, const metrics_block& b) {
    out +=
        "# HELP keeper_request_duration_seconds Time a worker spent on a request, by operation.\n"
        "# TYPE keeper_request_duration_seconds histogram\n";
    for (std::size_t o = 0; o < metrics_block::op_slots; ++o) {
        write_histogram(out, "keeper_request_duration_seconds", op_label(o), b.duration_buckets[o],
                        b.duration_sum_us[o], true);
    }
}

std::size_t bucket_of(std::chrono::microseconds took) {
    const double seconds = static_cast<double>(took.count()) / 1e6;
    std::size_t bucket = 0;
    while (bucket < metrics_block::bucket_bounds.size() && seconds > metrics_block::bucket_bounds[bucket]) ++bucket;
    return bucket;
}

template <typename T>
std::string value(const std::atomic<T>& a) {
    return std::to_string(a.load(std::memory_order_relaxed));
}

void write_one(std::string& out, const char* name, const char* type, const char* help, const std::string& v) {
    out += std::string{"# HELP "} + name + " " + help + "\n# TYPE " + name + " " + type + "\n" + name + " " + v + "\n";
}

// The pool's and the database's single-valued series: one line each, from runtime_gauges.
template <typename T>
struct series_line {
    const char* name;
    const char* help;
    std::atomic<T> runtime_gauges::*field;
};
constexpr series_line<std::int64_t> pool_gauges[] = {
    {"keeper_start_time_seconds", "When the pool started, seconds since the epoch.",
     &runtime_gauges::start_time_seconds},
    {"keeper_workers_configured", "Worker processes the configuration asks for.", &runtime_gauges::workers_configured},
    {"keeper_workers_alive", "Worker processes running (retiring ones of a reload included).",
     &runtime_gauges::workers_alive},
    {"keeper_worker_threads_busy", "Threads handling a request now.", &runtime_gauges::threads_busy},
    {"keeper_requests_waiting", "Requests waiting for a worker's thread now.", &runtime_gauges::requests_waiting},
    {"keeper_database_connections_open", "PostgreSQL connections the workers hold open.",
     &runtime_gauges::db_connections_open},
    {"keeper_database_calls_waiting", "Calls waiting for a free database connection of their worker.",
     &runtime_gauges::db_calls_waiting},
};
constexpr series_line<std::uint64_t> pool_counters[] = {
    {"keeper_requests_refused_total",
     "Requests refused on arrival (503, not applied): no thread would have been free within admission_wait_ms.",
     &runtime_gauges::requests_refused},
    {"keeper_requests_refusals_held_total",
     "Of the refused requests, those answered a second late: the client asked again before its Retry-After ran out.",
     &runtime_gauges::refusals_held},
    {"keeper_database_connect_failures_total", "Attempts to connect to PostgreSQL that failed.",
     &runtime_gauges::db_connect_failures},
    {"keeper_database_connections_lost_total", "Open connections found broken (closed and opened again on next use).",
     &runtime_gauges::db_connections_lost},
    {"keeper_database_lock_timeouts_total", "Calls that waited lock_timeout_ms for a lock and failed.",
     &runtime_gauges::db_lock_timeouts},
    {"keeper_database_statement_timeouts_total", "Calls cancelled after statement_timeout_ms.",
     &runtime_gauges::db_statement_timeouts},
    {"keeper_database_in_doubt_recorded_total",
     "Calls whose connection broke after the statement was sent, answered with the result their audit row recorded.",
     &runtime_gauges::db_in_doubt_recorded},
    {"keeper_database_in_doubt_rerun_total",
     "Calls whose connection broke after the statement was sent, run again because they had not happened.",
     &runtime_gauges::db_in_doubt_rerun},
    {"keeper_database_outcome_unknown_total",
     "Calls answered with the outcome-unknown fault: not settled within call_budget_ms.",
     &runtime_gauges::db_outcome_unknown},
    {"keeper_database_waited_for_primary_total",
     "Calls that found no primary at first and ran once one answered within call_budget_ms.",
     &runtime_gauges::db_waited_for_primary},
};

void write_pool(std::string& out, const runtime_gauges& g) {
    out +=
        "# HELP keeper_build_info The running build.\n# TYPE keeper_build_info gauge\n"
        "keeper_build_info{version=\"" KEEPER_VERSION "\"} 1\n";
    for (const auto& line : pool_gauges) write_one(out, line.name, "gauge", line.help, value(g.*line.field));
    for (const auto& line : pool_counters) write_one(out, line.name, "counter", line.help, value(g.*line.field));
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
    out +=
        "# HELP keeper_database_call_duration_seconds One database call: its one statement, which is its whole "
        "transaction, commit included.\n"
        "# TYPE keeper_database_call_duration_seconds histogram\n";
    write_histogram(out, "keeper_database_call_duration_seconds", "", g.db_call_buckets, g.db_call_sum_us, false);
}

}  // namespace

void record_database_call(runtime_gauges& g, std::chrono::microseconds took) {
    g.db_call_buckets[bucket_of(took)].fetch_add(1, std::memory_order_relaxed);
    g.db_call_sum_us.fetch_add(static_cast<std::uint64_t>(took.count()), std::memory_order_relaxed);
}

void record_request(metrics_block& b, const request_log& log, std::chrono::microseconds took) {
    const auto o = op_slot(log.op);
    b.requests[o][static_cast<std::size_t>(log.via)][outcome_slot(log)].fetch_add(1, std::memory_order_relaxed);
    b.duration_buckets[o][bucket_of(took)].fetch_add(1, std::memory_order_relaxed);
    b.duration_sum_us[o].fetch_add(static_cast<std::uint64_t>(took.count()), std::memory_order_relaxed);
    if (log.replayed) b.replays[o].fetch_add(1, std::memory_order_relaxed);
}

std::string format_synchronous_standby(std::optional<bool> named) {
    std::string out;
    if (named) {
        write_one(out, "keeper_database_synchronous_standby", "gauge",
                  "1 while the database names a synchronous standby (a commit waits for a second copy), 0 while it "
                  "names none.",
                  *named ? "1" : "0");
    }
    return out;
}

std::string format_database_clock(std::optional<std::chrono::microseconds> offset) {
    std::string out;
    if (offset) {
        char value[32];
        std::snprintf(value, sizeof value, "%.6f", std::chrono::duration<double>(*offset).count());
        write_one(out, "keeper_database_clock_offset_seconds", "gauge",
                  "The database's clock minus this host's, in seconds, measured at this scrape over one round trip "
                  "(off by at most half of it).",
                  value);
    }
    return out;
}

std::string format_metrics(const metrics_block& b) {
    std::string out;
    write_requests(out, b);
    write_faults(out, b);
    write_replays(out, b);
    write_durations(out, b);
    write_pool(out, b.runtime);
    return out;
}

}  // namespace keeper::core
