// Each operation of this stage over each transport, through nginx, with the exact answer.
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <regex>

#include "core/api/date_time.hpp"
#include "stack_fixture.hpp"

using namespace keeper::test;

namespace {

struct transports_fixture : stack_fixture {
    std::string login = unique("e2e");
    std::string secret = "secret-" + unique("x");
    std::string app = unique("app");
    transports_fixture() {
        add_login(login, secret);
        add_app(app, "app-secret", true);
    }
    fields auth_fields(const std::string& session) {
        return {{"sessionId", session},
                {"login", login},
                {"authHash", keeper::core::expected_auth_hash(login, secret, session)}};
    }
};

const std::string ru_4 = "Ошибка аутентификации.";

void check_date_time_now(const std::string& text) {
    static const std::regex format{R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,7})?Z)"};
    BOOST_TEST(std::regex_match(text, format), text);
    const auto now = std::chrono::system_clock::now();
    std::tm tm{};
    strptime(text.c_str(), "%Y-%m-%dT%H:%M:%S", &tm);
    const auto then = std::chrono::system_clock::from_time_t(timegm(&tm));
    BOOST_TEST((std::chrono::abs(now - then) < std::chrono::seconds{60}));
}

std::string between(const std::string& body, const std::string& open, const std::string& close) {
    const auto a = body.find(open);
    BOOST_TEST_REQUIRE(a != std::string::npos, body);
    const auto b = body.find(close, a);
    return body.substr(a + open.size(), b - a - open.size());
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(e2e_transports, transports_fixture)

BOOST_AUTO_TEST_CASE(authenticate_over_every_transport) {
    const auto s1 = unique("s"), s2 = unique("s"), s3 = unique("s"), s4 = unique("s"), s5 = unique("s");
    auto r = soap11_call("SimpleAuthApi", "Authenticate", auth_fields(s1));
    BOOST_TEST(r.status == 200);
    BOOST_TEST(r.header("content-type") == "text/xml; charset=utf-8");
    BOOST_TEST(r.body == soap_success(soap11_ns, "Authenticate", "0"));
    r = soap11_call("SimpleAuthApi", "Authenticate", auth_fields(s5), false);
    BOOST_TEST(r.body == soap_success(soap11_ns, "Authenticate", "0"));
    r = soap12_call("SimpleAuthApi", "Authenticate", auth_fields(s2));
    BOOST_TEST(r.header("content-type") == "application/soap+xml; charset=utf-8");
    BOOST_TEST(r.body == soap_success(soap12_ns, "Authenticate", "0"));
    r = get_call("SimpleAuthApi", "Authenticate", auth_fields(s3));
    BOOST_TEST(r.header("content-type") == "text/xml; charset=utf-8");
    BOOST_TEST(r.body == plain_success("int", "0"));
    r = post_call("SimpleAuthApi", "Authenticate", auth_fields(s4));
    BOOST_TEST(r.body == plain_success("int", "0"));
    const auto s6 = unique("s");
    r = json_call("SimpleAuthApi", "Authenticate",
                  R"({"sessionId":")" + s6 + R"(","login":")" + login + R"(","authHash":")" +
                      keeper::core::expected_auth_hash(login, secret, s6) + R"("})");
    BOOST_TEST(r.status == 200);
    BOOST_TEST(r.header("content-type") == "application/json; charset=utf-8");
    BOOST_TEST(r.body == R"({"d":0})");
    BOOST_TEST(count("SELECT count(*) FROM sessions s JOIN logins l ON l.id = s.login_id WHERE l.login = '" + login +
                     "'") == 6);
}

BOOST_AUTO_TEST_CASE(check_session_ex_over_every_transport) {
    const auto s = unique("S");
    BOOST_TEST(authenticate(s, login, keeper::core::expected_auth_hash(login, secret, s)) == 0);
    const fields f{{"sessionId", s}, {"appId", app}};
    BOOST_TEST(soap11_call("AccountApi", "CheckSessionEx", f).body == soap_success(soap11_ns, "CheckSessionEx", "0"));
    BOOST_TEST(soap12_call("AccountApi", "CheckSessionEx", f).body == soap_success(soap12_ns, "CheckSessionEx", "0"));
    BOOST_TEST(soap12_call("AccountApi", "CheckSessionEx", f, false).body ==
               soap_success(soap12_ns, "CheckSessionEx", "0"));
    BOOST_TEST(get_call("AccountApi", "CheckSessionEx", f).body == plain_success("int", "0"));
    BOOST_TEST(post_call("AccountApi", "CheckSessionEx", f).body == plain_success("int", "0"));
    const fields unknown{{"sessionId", unique("none")}, {"appId", app}};
    BOOST_TEST(soap11_call("AccountApi", "CheckSessionEx", unknown).body ==
               soap_success(soap11_ns, "CheckSessionEx", "2"));
    BOOST_TEST(post_call("AccountApi", "CheckSessionEx", unknown).body == plain_success("int", "2"));
    // The issue's capture of a genuine ASMX: {"sessionId":…,"appId":…} → 200, {"d":0}.
    const auto j =
        json_call("AccountApi", "CheckSessionEx", R"({"sessionId":")" + s + R"(","appId":")" + app + R"("})");
    BOOST_TEST(j.status == 200);
    BOOST_TEST(j.header("content-type") == "application/json; charset=utf-8");
    BOOST_TEST(j.body == R"({"d":0})");
    BOOST_TEST(json_call("AccountApi", "CheckSessionEx",
                         R"({"sessionId":")" + unique("none") + R"(","appId":")" + app + R"("})")
                   .body == R"({"d":2})");
}

BOOST_AUTO_TEST_CASE(json_errors_reach_the_client_as_asp_net_ajax_writes_them) {
    const auto missing = json_call("AccountApi", "CheckSessionEx", R"({"sessionId":"x"})");
    BOOST_TEST(missing.status == 400);
    BOOST_TEST(missing.header("jsonerror") == "true");
    BOOST_TEST(missing.header("content-type") == "application/json; charset=utf-8");
    BOOST_TEST(missing.body == R"({"Message":"Missing parameter: appId."})");
    const auto bad = json_call("AccountApi", "CheckSessionEx", R"({"sessionId":1,"appId":"a"})");
    BOOST_TEST(bad.status == 400);
    BOOST_TEST(bad.body ==
               R"({"Message":"Parameter \u0027sessionId\u0027 has an invalid value 1: not a valid string."})");
    const auto broken = json_call("AccountApi", "CheckSessionEx", "{\"sessionId\":");
    BOOST_TEST(broken.status == 400);
    BOOST_TEST(broken.header("jsonerror") == "true");
}

BOOST_AUTO_TEST_CASE(get_utc_now_over_every_transport) {
    check_date_time_now(
        between(soap11_call("GlobalApi", "GetUtcNow", {}).body, "<GetUtcNowResult>", "</GetUtcNowResult>"));
    check_date_time_now(
        between(soap12_call("GlobalApi", "GetUtcNow", {}).body, "<GetUtcNowResult>", "</GetUtcNowResult>"));
    const auto g = get_call("GlobalApi", "GetUtcNow", {});
    BOOST_TEST(g.body.rfind("<?xml version=\"1.0\" encoding=\"utf-8\"?>\r\n<dateTime xmlns=\"http://tempuri.org/\">",
                            0) == 0u);
    check_date_time_now(between(g.body, "tempuri.org/\">", "</dateTime>"));
    check_date_time_now(between(post_call("GlobalApi", "GetUtcNow", {}).body, "tempuri.org/\">", "</dateTime>"));
    const auto j = json_call("GlobalApi", "GetUtcNow", "{}").body;
    BOOST_TEST_REQUIRE(j.starts_with(R"({"d":"\/Date()"), j);
    const auto ms = std::stoll(j.substr(13));
    check_date_time_now(keeper::core::format_date_time(keeper::core::utc_time{std::chrono::milliseconds{ms}}));
    const auto soap = soap11_call("GlobalApi", "GetUtcNow", {}).body;
    BOOST_TEST(soap.rfind(soap_success(soap11_ns, "GetUtcNow", "").substr(0, 250), 0) == 0u);
}

BOOST_AUTO_TEST_CASE(get_error_desc_over_every_transport) {
    const fields ru{{"errorCode", "4"}, {"cultureCode", "1049"}};
    BOOST_TEST(soap11_call("ErrorsApi", "GetErrorDesc", ru).body == soap_success(soap11_ns, "GetErrorDesc", ru_4));
    BOOST_TEST(soap12_call("ErrorsApi", "GetErrorDesc", ru).body == soap_success(soap12_ns, "GetErrorDesc", ru_4));
    BOOST_TEST(get_call("ErrorsApi", "GetErrorDesc", ru).body == plain_success("string", ru_4));
    BOOST_TEST(post_call("ErrorsApi", "GetErrorDesc", {{"errorCode", "99"}, {"cultureCode", "1033"}}).body ==
               plain_success("string", "Unknown error code 99"));
    BOOST_TEST(get_call("ErrorsApi", "GetErrorDesc", {{"errorCode", "3"}, {"cultureCode", "1031"}}).body ==
               plain_success("string", "Session expired."));
}

BOOST_AUTO_TEST_CASE(responses_carry_the_request_id_that_the_log_and_audit_use) {
    const auto s = unique("rid");
    const auto r = get_call("SimpleAuthApi", "Authenticate",
                            {{"sessionId", s}, {"login", login}, {"authHash", std::string(32, 'f')}});
    const auto id = r.header("x-request-id");
    BOOST_TEST_REQUIRE(id.size() == 32u);
    BOOST_TEST(count("SELECT count(*) FROM audit_log WHERE request_id = '" + id +
                     "' AND operation = 'Authenticate' AND result = 4") == 1);
    // The id starts with the time in milliseconds (nginx/keeper-request-id.conf), so later calls'
    // ids sort after earlier ones' (by their time; two calls in one millisecond in any order).
    const auto ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch());
    BOOST_TEST(std::llabs(std::stoll(id.substr(0, 13)) - static_cast<long long>(ms.count())) < 60'000);
    BOOST_TEST(id.find_first_not_of("0123456789abcdef") == std::string::npos);
    const auto later = get_call("GlobalApi", "GetUtcNow", {}).header("x-request-id");
    BOOST_TEST(later.substr(0, 13) >= id.substr(0, 13));
}

BOOST_AUTO_TEST_CASE(every_answer_says_nosniff_and_html_pages_also_a_content_security_policy) {
    for (const std::string target : {"/GlobalApi.asmx/GetUtcNow", "/GlobalApi.asmx?WSDL", "/GlobalApi.asmx/Nope",
                                     "/Nope.asmx", "/GlobalApi.asmx", "/GlobalApi.asmx?op=GetUtcNow"}) {
        const auto r = keeper::test::http_get(port, target);
        BOOST_TEST(r.header("x-content-type-options") == "nosniff", target);
    }
    const auto page = keeper::test::http_get(port, "/GlobalApi.asmx?op=GetUtcNow");
    BOOST_TEST(page.header("content-type") == "text/html; charset=utf-8");
    BOOST_TEST(page.header("content-security-policy").find("default-src 'none'") == 0u);
}

BOOST_AUTO_TEST_SUITE_END()
