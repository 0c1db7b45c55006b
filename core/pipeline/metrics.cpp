#include "core/pipeline/metrics.hpp"

#include <cstdio>

#include "core/domain/operation_table.hpp"
#include "core/wire/transport_table.hpp"

namespace keeper::core {
namespace {

using prometheus::bucket_of;
using prometheus::write_histogram;
using prometheus::write_one;

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

void write_durations(std::string& out, const metrics_block& b) {
    out +=
        "# HELP keeper_request_duration_seconds Time a worker spent on a request, by operation.\n"
        "# TYPE keeper_request_duration_seconds histogram\n";
    for (std::size_t o = 0; o < metrics_block::op_slots; ++o) {
        write_histogram(out, "keeper_request_duration_seconds", op_label(o), b.duration_buckets[o],
                        b.duration_sum_us[o], true);
    }
}

}  // namespace

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
    std::string out =
        "# HELP keeper_build_info The running build.\n# TYPE keeper_build_info gauge\n"
        "keeper_build_info{version=\"" KEEPER_VERSION "\"} 1\n";
    write_requests(out, b);
    write_faults(out, b);
    write_replays(out, b);
    write_durations(out, b);
    return out;
}

}  // namespace keeper::core
