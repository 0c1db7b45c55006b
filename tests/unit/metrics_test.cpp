#include <boost/test/unit_test.hpp>

#include "tests/support/printers.hpp"

#include <memory>
#include <vector>

#include "core/domain/operation_table.hpp"
#include "core/pipeline/metrics.hpp"
#include "pool/pool_metrics.hpp"
#include "pool/process_metrics.hpp"

using namespace keeper::core;

namespace {

request_log log_for(const operation* op, transport t, std::optional<int> result, std::optional<fault_kind> f) {
    request_log log;
    log.op = op;
    log.via = t;
    log.result = result;
    log.fault = f;
    return log;
}

bool has_line(const std::string& text, const std::string& line) { return text.find(line + "\n") != std::string::npos; }

}  // namespace

BOOST_AUTO_TEST_SUITE(metrics)

BOOST_AUTO_TEST_CASE(requests_are_counted_by_operation_transport_and_outcome) {
    auto block = std::make_unique<metrics_block>();
    const auto* auth = find_operation(api_group::simple_auth, "Authenticate");
    record_request(*block, log_for(auth, transport::soap11, 0, std::nullopt), std::chrono::microseconds{300});
    record_request(*block, log_for(auth, transport::soap11, 0, std::nullopt), std::chrono::microseconds{3000});
    record_request(*block, log_for(auth, transport::http_get, 4, std::nullopt), std::chrono::microseconds{100});
    record_request(*block, log_for(nullptr, transport::soap12, std::nullopt, fault_kind::malformed),
                   std::chrono::microseconds{50});
    const auto text = format_metrics(*block);
    BOOST_TEST(has_line(
        text,
        R"(keeper_requests_total{group="SimpleAuthApi",operation="Authenticate",transport="soap11",outcome="result_0"} 2)"));
    BOOST_TEST(has_line(
        text,
        R"(keeper_requests_total{group="SimpleAuthApi",operation="Authenticate",transport="get",outcome="result_4"} 1)"));
    BOOST_TEST(has_line(
        text, R"(keeper_requests_total{group="-",operation="-",transport="soap12",outcome="fault_malformed"} 1)"));
    BOOST_TEST(has_line(text, R"(keeper_faults_total{kind="malformed"} 1)"));
    BOOST_TEST(has_line(text, R"(keeper_faults_total{kind="server"} 0)"));
    BOOST_TEST(has_line(text, "# TYPE keeper_requests_total counter"));
}

BOOST_AUTO_TEST_CASE(durations_form_a_cumulative_histogram) {
    auto block = std::make_unique<metrics_block>();
    const auto* now = find_operation(api_group::global, "GetUtcNow");
    for (int us : {100, 400, 2000, 2000000}) {
        record_request(*block, log_for(now, transport::http_get, std::nullopt, std::nullopt),
                       std::chrono::microseconds{us});
    }
    const auto text = format_metrics(*block);
    const std::string labels = R"(group="GlobalApi",operation="GetUtcNow")";
    BOOST_TEST(has_line(text, "keeper_request_duration_seconds_bucket{" + labels + R"(,le="0.0005"} 2)"));
    BOOST_TEST(has_line(text, "keeper_request_duration_seconds_bucket{" + labels + R"(,le="0.0025"} 3)"));
    BOOST_TEST(has_line(text, "keeper_request_duration_seconds_bucket{" + labels + R"(,le="1"} 3)"));
    BOOST_TEST(has_line(text, "keeper_request_duration_seconds_bucket{" + labels + R"(,le="+Inf"} 4)"));
    BOOST_TEST(has_line(text, "keeper_request_duration_seconds_count{" + labels + "} 4"));
    BOOST_TEST(has_line(text, "keeper_request_duration_seconds_sum{" + labels + "} 2.0025"));
    BOOST_TEST(text.find(R"(operation="Authenticate",le=)") == std::string::npos);  // no series for unused operations
}

// The pool's page composes each part's series (pool/pool_metrics.hpp): the requests', the pool's
// gauges, its database connections'.
BOOST_AUTO_TEST_CASE(pool_and_database_series_follow_prometheus_conventions) {
    auto shared = std::make_unique<keeper::pool::shared_metrics>();
    auto& g = shared->pool;
    g.start_time_seconds = 1800000000;
    g.workers_configured = 8;
    g.workers_alive = 7;
    g.threads_per_worker = 24;
    g.threads_busy = 3;
    g.worker_replacements[0] = 2;
    g.requests_refused = 9;
    g.refusals_held = 6;
    auto& d = shared->database;
    d.connections_open = 15;
    d.connect_failures = 4;
    d.connections_lost = 5;
    d.lock_timeouts = 1;
    keeper::db::record_database_call(d, std::chrono::microseconds{700});    // le 0.001
    keeper::db::record_database_call(d, std::chrono::microseconds{30000});  // le 0.05
    const auto text = keeper::pool::pool_metrics{*shared}.text();
    BOOST_TEST(has_line(text, R"(keeper_build_info{version=")" KEEPER_VERSION R"("} 1)"));
    BOOST_TEST(has_line(text, "keeper_start_time_seconds 1800000000"));
    BOOST_TEST(has_line(text, "keeper_workers_configured 8"));
    BOOST_TEST(has_line(text, "keeper_workers_alive 7"));
    BOOST_TEST(has_line(text, "keeper_worker_threads 192"));
    BOOST_TEST(has_line(text, "keeper_worker_threads_busy 3"));
    BOOST_TEST(has_line(text, R"(keeper_worker_replacements_total{cause="signal"} 2)"));
    BOOST_TEST(has_line(text, R"(keeper_worker_replacements_total{cause="exit"} 0)"));
    BOOST_TEST(has_line(text, "keeper_database_connections_open 15"));
    BOOST_TEST(has_line(text, "keeper_requests_refused_total 9"));
    BOOST_TEST(has_line(text, "keeper_requests_refusals_held_total 6"));
    BOOST_TEST(has_line(text, "keeper_database_connect_failures_total 4"));
    BOOST_TEST(has_line(text, "keeper_database_connections_lost_total 5"));
    BOOST_TEST(has_line(text, "keeper_database_lock_timeouts_total 1"));
    BOOST_TEST(has_line(text, "keeper_database_statement_timeouts_total 0"));
    BOOST_TEST(has_line(text, R"(keeper_database_call_duration_seconds_bucket{le="0.0005"} 0)"));
    BOOST_TEST(has_line(text, R"(keeper_database_call_duration_seconds_bucket{le="0.001"} 1)"));
    BOOST_TEST(has_line(text, R"(keeper_database_call_duration_seconds_bucket{le="0.05"} 2)"));
    BOOST_TEST(has_line(text, R"(keeper_database_call_duration_seconds_bucket{le="+Inf"} 2)"));
    BOOST_TEST(has_line(text, "keeper_database_call_duration_seconds_sum 0.0307"));
    BOOST_TEST(has_line(text, "keeper_database_call_duration_seconds_count 2"));
    // Every series has its HELP and TYPE; counters end in _total, durations are in seconds.
    for (const std::string name :
         {"keeper_workers_alive", "keeper_worker_replacements_total", "keeper_database_connections_open",
          "keeper_database_call_duration_seconds", "keeper_build_info"}) {
        BOOST_TEST(text.find("# HELP " + name + " ") != std::string::npos, name);
        BOOST_TEST(text.find("# TYPE " + name + " ") != std::string::npos, name);
    }
}

// The series every Prometheus client library exports, once per process of the pool.
BOOST_AUTO_TEST_CASE(process_series_name_each_process_of_the_pool) {
    keeper::pool::process_sample supervisor;
    supervisor.cpu_seconds = 1.5;
    supervisor.resident_bytes = 4096;
    supervisor.start_time_seconds = 1795755932;
    keeper::pool::process_sample worker = supervisor;
    worker.worker_slot = 3;
    worker.open_fds = 12;
    worker.max_fds = 65536;
    const std::vector<keeper::pool::process_sample> processes{supervisor, worker};
    const auto text = keeper::pool::format_process_metrics(processes);
    BOOST_TEST(has_line(text, "# TYPE process_cpu_seconds_total counter"));
    BOOST_TEST(has_line(text, R"(process_cpu_seconds_total{process="supervisor"} 1.5)"));
    BOOST_TEST(has_line(text, R"(process_resident_memory_bytes{process="worker",slot="3"} 4096)"));
    BOOST_TEST(has_line(text, R"(process_open_fds{process="worker",slot="3"} 12)"));
    BOOST_TEST(has_line(text, R"(process_max_fds{process="worker",slot="3"} 65536)"));
    BOOST_TEST(has_line(text, R"(process_start_time_seconds{process="supervisor"} 1795755932)"));
    for (const std::string name : {"process_virtual_memory_bytes", "process_resident_memory_bytes", "process_open_fds",
                                   "process_max_fds", "process_start_time_seconds"}) {
        BOOST_TEST(has_line(text, "# TYPE " + name + " gauge"), name);
    }
    BOOST_TEST(keeper::pool::format_process_metrics({}).empty());
}

// Whether acknowledgements are two copies: a gauge read at the scrape, absent when the database
// does not answer (no 0 that would look like one copy).
BOOST_AUTO_TEST_CASE(the_synchronous_standby_gauge_says_one_copy_or_two_and_nothing_unknown) {
    BOOST_TEST(format_synchronous_standby(true).ends_with("\nkeeper_database_synchronous_standby 1\n"));
    BOOST_TEST(format_synchronous_standby(false).ends_with("\nkeeper_database_synchronous_standby 0\n"));
    BOOST_TEST(format_synchronous_standby(false).find("# TYPE keeper_database_synchronous_standby gauge\n") !=
               std::string::npos);
    BOOST_TEST(format_synchronous_standby(std::nullopt).empty());
}

// The database's clock against this host's, in seconds either way, absent when it does not answer
// (no 0 that would look like agreement).
BOOST_AUTO_TEST_CASE(the_clock_offset_gauge_is_seconds_either_way_and_nothing_unknown) {
    BOOST_TEST(format_database_clock(std::chrono::microseconds{-30'000'250})
                   .ends_with("\nkeeper_database_clock_offset_seconds -30.000250\n"));
    BOOST_TEST(format_database_clock(std::chrono::microseconds{1'500})
                   .ends_with("\nkeeper_database_clock_offset_seconds 0.001500\n"));
    BOOST_TEST(format_database_clock(std::chrono::microseconds{0})
                   .find("# TYPE keeper_database_clock_offset_seconds gauge\n") != std::string::npos);
    BOOST_TEST(format_database_clock(std::nullopt).empty());
}

BOOST_AUTO_TEST_SUITE_END()
