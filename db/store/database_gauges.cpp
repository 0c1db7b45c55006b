#include "db/store/database_gauges.hpp"

namespace keeper::db {
namespace {

using core::prometheus::write_series;
template <typename T>
using series_line = core::prometheus::series_line<database_gauges, T>;

constexpr series_line<std::int64_t> gauges[] = {
    {"keeper_database_connections_open", "PostgreSQL connections the workers hold open.",
     &database_gauges::connections_open},
    {"keeper_database_calls_waiting", "Calls waiting for a free database connection of their worker.",
     &database_gauges::calls_waiting},
};
constexpr series_line<std::uint64_t> counters[] = {
    {"keeper_database_connect_failures_total", "Attempts to connect to PostgreSQL that failed.",
     &database_gauges::connect_failures},
    {"keeper_database_connections_lost_total", "Open connections found broken (closed and opened again on next use).",
     &database_gauges::connections_lost},
    {"keeper_database_lock_timeouts_total", "Calls that waited lock_timeout_ms for a lock and failed.",
     &database_gauges::lock_timeouts},
    {"keeper_database_statement_timeouts_total", "Calls cancelled after statement_timeout_ms.",
     &database_gauges::statement_timeouts},
    {"keeper_database_in_doubt_recorded_total",
     "Calls whose connection broke after the statement was sent, answered with the result their audit row recorded.",
     &database_gauges::in_doubt_recorded},
    {"keeper_database_in_doubt_rerun_total",
     "Calls whose connection broke after the statement was sent, run again because they had not happened.",
     &database_gauges::in_doubt_rerun},
    {"keeper_database_outcome_unknown_total",
     "Calls answered with the outcome-unknown fault: not settled within call_budget_ms.",
     &database_gauges::outcome_unknown},
    {"keeper_database_waited_for_primary_total",
     "Calls that found no primary at first and ran once one answered within call_budget_ms.",
     &database_gauges::waited_for_primary},
};

}  // namespace

void record_database_call(database_gauges& g, std::chrono::microseconds took) {
    g.call_buckets[core::prometheus::bucket_of(took)].fetch_add(1, std::memory_order_relaxed);
    g.call_sum_us.fetch_add(static_cast<std::uint64_t>(took.count()), std::memory_order_relaxed);
}

std::string format_database_gauges(const database_gauges& g) {
    std::string out;
    write_series(out, "gauge", gauges, g);
    write_series(out, "counter", counters, g);
    out +=
        "# HELP keeper_database_call_duration_seconds One database call: its one statement, which is its whole "
        "transaction, commit included.\n"
        "# TYPE keeper_database_call_duration_seconds histogram\n";
    core::prometheus::write_histogram(out, "keeper_database_call_duration_seconds", "", g.call_buckets, g.call_sum_us,
                                      false);
    return out;
}

}  // namespace keeper::db
