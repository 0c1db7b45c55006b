// GET /call-outcome (core/pipeline/call_outcome.hpp): a caller's look at one of its own calls by request id,
// answered in JSON through the router, against a store that answers what the test sets.
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <string>
#include <vector>

#include "tests/support/printers.hpp"

#include "core/pipeline/call_outcome.hpp"
#include "core/pipeline/request_router.hpp"
#include "tests/support/soap_messages.hpp"
#include "tests/support/unreachable_store.hpp"

using namespace keeper::core;

namespace {

// Answers find_call with `record`, and keeps what it was asked.
struct recorded_store : keeper::test::unreachable_store {
    call_record record;
    std::string session_id;
    std::string request_id;
    utc_time sent{};
    utc_time final{};
    call_record find_call(const session_ref& session, std::string_view id, utc_time f, utc_time last,
                          const deadline&) override {
        session_id = session.session_id;
        request_id = id;
        sent = f;
        final = last;
        return record;
    }
};

// keeper's request id for a call nginx first saw `ago` before now.
std::string request_id_of(std::chrono::milliseconds ago) {
    const auto ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()) -
        ago;
    return std::to_string(ms.count()) + "0123456789abcdef012";
}

http_request get(const std::string& query) {
    auto r = keeper::test::request("GET", "/call-outcome", query);
    r.request_id = "17000000000000123456789abcdef0123";
    return r;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(call_outcome)

BOOST_AUTO_TEST_CASE(a_request_id_says_when_nginx_first_saw_the_call) {
    const auto t = request_id_time(
        "1700000000123"
        "0123456789abcdef012");
    BOOST_TEST_REQUIRE(t.has_value());
    BOOST_TEST(std::chrono::duration_cast<std::chrono::milliseconds>(t->time_since_epoch()).count() == 1700000000123);
    BOOST_TEST(
        !request_id_time("1700000000123"
                         "0123456789ABCDEF012"));  // upper-case hex: not keeper's
    BOOST_TEST(
        !request_id_time("170000000012x"
                         "0123456789abcdef012"));
    BOOST_TEST(!request_id_time("1700000000123"));
}

BOOST_AUTO_TEST_CASE(a_recorded_call_answers_its_result_and_time) {
    recorded_store st;
    st.record = {result_code::ok, result_code::limit_exceeded, "2026-11-27T07:00:00.123Z"};
    const settings cfg;
    const auto id = request_id_of(std::chrono::minutes{1});
    const auto out = handle_request(get("sessionId=ABCdef&requestId=" + id), st, cfg);
    BOOST_TEST(out.response.status == 200);
    BOOST_TEST(out.response.content_type.starts_with("application/json"));
    BOOST_TEST(out.response.body ==
               R"({"requestId":")" + id +
                   R"(","session":0,"outcome":"recorded","result":9,"at":"2026-11-27T07:00:00.123Z"})");
    BOOST_TEST(st.session_id == "abcdef");  // sessions compare in lower case, as in every call
    BOOST_TEST(st.request_id == id);
    // The id's own time, to the millisecond.
    BOOST_TEST((st.final - st.sent == cfg.call_budget + std::chrono::seconds{6}));
    BOOST_TEST((request_id_time(id) == st.sent));
    BOOST_TEST(out.log.outcome == "outcome=recorded");
}

BOOST_AUTO_TEST_CASE(no_call_is_none_once_the_store_finds_it_decided_and_pending_before) {
    recorded_store st;
    st.record = {result_code::ok, std::nullopt, ""};
    const settings cfg;  // call_budget_ms 10 000
    const auto old = request_id_of(std::chrono::seconds{16});
    auto out = handle_request(get("sessionId=s&requestId=" + old), st, cfg);
    BOOST_TEST(out.response.body == R"({"requestId":")" + old + R"(","session":0,"outcome":"none"})");
    // The store decides, under the call's lock; "final" is when it begins to: the time this host's
    // settings give an attempt that began in time to end, 10 s of budget, 5 s of statement_timeout
    // and 1 s of slack after nginx first saw the call.
    BOOST_TEST((st.final - st.sent == std::chrono::seconds{16}));
    st.record.undecided = std::chrono::milliseconds{14200};
    out = handle_request(get("sessionId=s&requestId=" + old), st, cfg);
    BOOST_TEST(out.response.status == 200);
    BOOST_TEST(out.response.body ==
               R"({"requestId":")" + old + R"(","session":0,"outcome":"pending","retryAfter":15})");
    bool retry_after = false;
    for (const auto& [name, value] : out.response.headers) {
        if (name == "Retry-After") retry_after = value == "15";
    }
    BOOST_TEST(retry_after);
    BOOST_TEST(out.log.outcome == "outcome=pending");
}

BOOST_AUTO_TEST_CASE(an_unknown_or_expired_session_says_so_and_nothing_of_the_call) {
    recorded_store st;
    st.record = {result_code::session_expired, std::nullopt, ""};
    const auto id = request_id_of(std::chrono::minutes{1});
    const auto out = handle_request(get("sessionId=s&requestId=" + id), st, settings{});
    BOOST_TEST(out.response.body == R"({"requestId":")" + id + R"(","session":3})");
    BOOST_TEST(out.log.outcome == "outcome=session");
}

BOOST_AUTO_TEST_CASE(a_form_post_is_read_as_a_get) {
    recorded_store st;
    st.record = {result_code::ok, result_code::ok, "2026-11-27T07:00:00.000Z"};
    auto r = get("");
    r.method = "POST";
    r.content_type = "application/x-www-form-urlencoded";
    const auto id = request_id_of(std::chrono::minutes{1});
    r.body = "requestId=" + id + "&sessionId=s";
    BOOST_TEST(handle_request(r, st, settings{}).response.body.find(R"("outcome":"recorded","result":0)") !=
               std::string::npos);
}

BOOST_AUTO_TEST_CASE(bad_parameters_are_a_json_client_fault_and_ask_the_store_nothing) {
    keeper::test::unreachable_store st;
    const auto id = request_id_of(std::chrono::minutes{1});
    const std::vector<std::string> queries{"requestId=" + id, "sessionId=s", "sessionId=a%20b&requestId=" + id,
                                           "sessionId=s&requestId=abc", "sessionId=s&sessionId=t&requestId=" + id};
    for (const auto& query : queries) {
        BOOST_TEST_CONTEXT(query) {
            const auto out = handle_request(get(query), st, settings{});
            BOOST_TEST(out.response.status == 400);  // a JSON client fault, as the JSON transport answers one
            BOOST_TEST(out.response.body.starts_with(R"({"Message":)"));
            BOOST_TEST(out.log.outcome == "fault=client");
        }
    }
    auto put = get("sessionId=s&requestId=" + id);
    put.method = "PUT";
    BOOST_TEST(handle_request(put, st, settings{}).response.status == 405);
    BOOST_TEST(st.calls == 0);
}

// No arithmetic on an id's time can overflow, and an id dated ahead of any call keeper had is
// refused before the store is asked.
BOOST_AUTO_TEST_CASE(a_request_id_dated_far_ahead_is_a_client_fault_naming_it) {
    keeper::test::unreachable_store st;
    for (const auto ahead : {std::chrono::hours{-24 * 30}, std::chrono::hours{-1}}) {
        const auto id = request_id_of(ahead);
        BOOST_TEST_CONTEXT(id) {
            const auto out = handle_request(get("sessionId=s&requestId=" + id), st, settings{});
            BOOST_TEST(out.response.status == 400);
            BOOST_TEST(out.response.body.find("requestId") != std::string::npos);
        }
    }
    // Past what utc_time holds (2262) and the last 13-digit time (2286): not a request id at all.
    for (const std::string digits : {"9300000000000", "9999999999999"}) {
        const auto out = handle_request(get("sessionId=s&requestId=" + digits + "0123456789abcdef012"), st, settings{});
        BOOST_TEST(out.response.status == 400);
        BOOST_TEST(out.response.body.find("requestId") != std::string::npos);
    }
    BOOST_TEST(
        !request_id_time("9300000000000"
                         "0123456789abcdef012"));
    BOOST_TEST(st.calls == 0);
}

BOOST_AUTO_TEST_CASE(a_database_that_does_not_answer_is_a_json_server_fault) {
    keeper::test::unreachable_store st;
    const auto out =
        handle_request(get("sessionId=s&requestId=" + request_id_of(std::chrono::minutes{1})), st, settings{});
    BOOST_TEST(out.response.status == 500);
    BOOST_TEST(out.response.body.starts_with(R"({"Message":)"));
    BOOST_TEST(st.calls == 1);
}

BOOST_AUTO_TEST_SUITE_END()
