#include <boost/test/unit_test.hpp>

#include "tests/support/printers.hpp"

#include <memory>

#include "core/metrics.hpp"
#include "core/operation_table.hpp"

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
    record_request(*block, log_for(nullptr, transport::soap12, std::nullopt, fault_kind::malformed), std::chrono::microseconds{50});
    const auto text = format_metrics(*block);
    BOOST_TEST(has_line(text, R"(keeper_requests_total{group="SimpleAuthApi",operation="Authenticate",transport="soap11",outcome="result_0"} 2)"));
    BOOST_TEST(has_line(text, R"(keeper_requests_total{group="SimpleAuthApi",operation="Authenticate",transport="get",outcome="result_4"} 1)"));
    BOOST_TEST(has_line(text, R"(keeper_requests_total{group="-",operation="-",transport="soap12",outcome="fault_malformed"} 1)"));
    BOOST_TEST(has_line(text, R"(keeper_faults_total{kind="malformed"} 1)"));
    BOOST_TEST(has_line(text, R"(keeper_faults_total{kind="server"} 0)"));
    BOOST_TEST(has_line(text, "# TYPE keeper_requests_total counter"));
}

BOOST_AUTO_TEST_CASE(durations_form_a_cumulative_histogram) {
    auto block = std::make_unique<metrics_block>();
    const auto* now = find_operation(api_group::global, "GetUtcNow");
    for (int us : {100, 400, 2000, 2000000}) {
        record_request(*block, log_for(now, transport::http_get, std::nullopt, std::nullopt), std::chrono::microseconds{us});
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

BOOST_AUTO_TEST_SUITE_END()
