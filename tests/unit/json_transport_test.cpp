// The fifth transport, JSON as ASP.NET AJAX clients call it, through the whole pipeline without a
// socket or a database (the store is down: a call that reaches it is a server fault).
#include <boost/test/unit_test.hpp>

#include "tests/support/printers.hpp"

#include "core/domain/operation_table.hpp"
#include "core/pipeline/request_router.hpp"
#include "core/wire/json_writer.hpp"
#include "tests/support/soap_messages.hpp"
#include "tests/support/unreachable_store.hpp"

using namespace keeper::core;
namespace t = keeper::test;

namespace {

struct json_fixture {
    settings cfg;
    t::unreachable_store db;

    handled_request post_json(const std::string& path, const std::string& body,
                              const std::string& content_type = "application/json; charset=utf-8") {
        auto r = t::request("POST", path, {}, content_type, body);
        return handle_request(r, db, cfg);
    }
    handled_request get(const std::string& path, const std::string& remote_addr = "127.0.0.1") {
        auto r = t::request("GET", path);
        r.remote_addr = remote_addr;
        return handle_request(r, db, cfg);
    }
    static std::string header(const handled_request& h, const std::string& name) {
        for (const auto& [n, v] : h.response.headers)
            if (n == name) return v;
        return {};
    }
    // A 400 naming what was wrong, in ASP.NET AJAX's error shape.
    void expect_client_error(const handled_request& h, const std::string& message) {
        BOOST_TEST(h.response.status == 400);
        BOOST_TEST(h.response.content_type == "application/json; charset=utf-8");
        BOOST_TEST(header(h, "jsonerror") == "true");
        BOOST_TEST(h.response.body == R"({"Message":)" + json_string(message) + "}");
        BOOST_TEST(db.calls == 0);
    }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(json_transport, json_fixture)

BOOST_AUTO_TEST_CASE(a_result_is_wrapped_in_d) {
    const auto r = post_json("/ErrorsApi.asmx/GetErrorDesc", R"({"errorCode":4,"cultureCode":1033})");
    BOOST_TEST(r.response.status == 200);
    BOOST_TEST(r.response.content_type == "application/json; charset=utf-8");
    BOOST_TEST(r.response.body == R"({"d":"Authentication failed."})");
    BOOST_TEST(r.log.via == transport::json);
    BOOST_TEST(r.log.operation == "GetErrorDesc");
    // Member order is free; white space around tokens too.
    const auto turned = post_json("/ErrorsApi.asmx/GetErrorDesc", " {\n \"cultureCode\" : 1049 , \"errorCode\":4 } ");
    BOOST_TEST(turned.response.body == R"({"d":"Ошибка аутентификации."})");
}

BOOST_AUTO_TEST_CASE(date_time_is_written_as_asp_net_ajax_does) {
    for (const std::string body : {"{}", "", "  "}) {  // no parameters: an empty object or no body at all
        const auto r = post_json("/GlobalApi.asmx/GetUtcNow", body);
        BOOST_TEST(r.response.status == 200);
        BOOST_TEST(r.response.body.starts_with(R"({"d":"\/Date()"));
        BOOST_TEST(r.response.body.ends_with(R"()\/"})"));
        const auto ms = std::stoll(r.response.body.substr(13));
        const auto now =
            std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
                .count();
        BOOST_TEST(std::llabs(now - ms) < 60000);
    }
}

BOOST_AUTO_TEST_CASE(strings_are_escaped_as_javascriptserializer_does) {
    BOOST_TEST(json_string("a\"b\\c") == R"("a\"b\\c")");
    BOOST_TEST(json_string("<b>&'") == R"("\u003cb\u003e\u0026\u0027")");
    BOOST_TEST(json_string(std::string{"\x01\n", 2}) == R"("\u0001\n")");
    BOOST_TEST(json_string("Ошибка") == "\"Ошибка\"");
}

BOOST_AUTO_TEST_CASE(a_missing_parameter_is_400_naming_it) {
    expect_client_error(post_json("/ErrorsApi.asmx/GetErrorDesc", R"({"errorCode":4})"),
                        "Missing parameter: cultureCode.");
}

BOOST_AUTO_TEST_CASE(a_mistyped_parameter_is_400_naming_it) {
    expect_client_error(post_json("/ErrorsApi.asmx/GetErrorDesc", R"({"errorCode":"4","cultureCode":1033})"),
                        "Parameter 'errorCode' has an invalid value \"4\": not a valid int.");
    expect_client_error(post_json("/ErrorsApi.asmx/GetErrorDesc", R"({"errorCode":4.5,"cultureCode":1033})"),
                        "Parameter 'errorCode' has an invalid value 4.5: not a valid int.");
    expect_client_error(post_json("/ErrorsApi.asmx/GetErrorDesc", R"({"errorCode":2147483648,"cultureCode":1033})"),
                        "Parameter 'errorCode' has an invalid value 2147483648: not a valid int.");
    expect_client_error(post_json("/ErrorsApi.asmx/GetErrorDesc", R"({"errorCode":null,"cultureCode":1033})"),
                        "Parameter 'errorCode' has an invalid value null: not a valid int.");
    expect_client_error(
        post_json("/AccountApi.asmx/SetAccountPermits",
                  R"({"sessionId":"s","acceptPayments":1,"acceptInvoices":true,"acceptMessages":true})"),
        "Parameter 'acceptPayments' has an invalid value 1: not a valid boolean.");
    expect_client_error(post_json("/AccountApi.asmx/CheckSessionEx", R"({"sessionId":["s"],"appId":"a"})"),
                        "Parameter 'sessionId' has an invalid value [\"s\"]: not a valid string.");
    expect_client_error(
        post_json("/PushApi.asmx/SubscribeWithTagAndLocale",
                  R"({"sessionId":"s","provider":"android","pushServiceUserId":"u","tag":1,"locale":"en"})"),
        "Parameter 'provider' has an invalid value \"android\": not a valid Provider.");
}

BOOST_AUTO_TEST_CASE(provider_is_read_by_name_or_by_number) {
    // Decoded, the call goes on to the store, which is down here: a server fault, not a 400.
    for (const std::string p : {R"("Android")", "1", R"("WindowsUWP")"}) {
        const auto r = post_json("/PushApi.asmx/SubscribeWithTagAndLocale",
                                 R"({"sessionId":"{11111111-2222-3333-4444-555555555555}","provider":)" + p +
                                     R"(,"pushServiceUserId":"u","tag":1,"locale":1033})");
        BOOST_TEST(r.response.status == 500, p << " " << r.response.body);
    }
    db.calls = 0;
    expect_client_error(post_json("/PushApi.asmx/SubscribeWithTagAndLocale",
                                  R"({"sessionId":"s","provider":16,"pushServiceUserId":"u","tag":1,"locale":"en"})"),
                        "Parameter 'provider' has an invalid value 16: not a valid Provider.");
}

BOOST_AUTO_TEST_CASE(a_body_that_is_not_json_or_not_an_object_is_400) {
    expect_client_error(post_json("/GlobalApi.asmx/GetUtcNow", "{"), "The request body is not valid JSON (at byte 2).");
    expect_client_error(post_json("/GlobalApi.asmx/GetUtcNow", "{\"a\":1,}"),
                        "The request body is not valid JSON (at byte 8).");
    expect_client_error(post_json("/GlobalApi.asmx/GetUtcNow", "{} {}"),
                        "The request body is not valid JSON (at byte 4).");
    expect_client_error(post_json("/GlobalApi.asmx/GetUtcNow", "/* c */ {}"),
                        "The request body is not valid JSON (at byte 1).");
    expect_client_error(post_json("/GlobalApi.asmx/GetUtcNow", "{\"a\":\"\xff\"}"),
                        "The request body is not valid JSON (at byte 7).");
    expect_client_error(post_json("/GlobalApi.asmx/GetUtcNow", "[]"),
                        "The JSON body must be an object of the operation's parameters by name.");
}

BOOST_AUTO_TEST_CASE(depth_and_repeats_are_bounded) {
    expect_client_error(
        post_json("/GlobalApi.asmx/GetUtcNow", R"({"x":)" + std::string(40, '[') + std::string(40, ']') + "}"),
        "The JSON body is nested too deeply.");
    expect_client_error(
        post_json("/ErrorsApi.asmx/GetErrorDesc", R"({"errorCode":4,"cultureCode":1033,"errorCode":5})"),
        "Parameter 'errorCode' is given more than once.");
    // Unknown members are ignored, as for the form transports.
    BOOST_TEST(post_json("/ErrorsApi.asmx/GetErrorDesc", R"({"errorCode":4,"cultureCode":1033,"x":{"y":1}})")
                   .response.status == 200);
}

BOOST_AUTO_TEST_CASE(a_server_failure_is_500_with_a_generic_message) {
    const auto r = post_json("/AccountApi.asmx/CheckSessionEx",
                             R"({"sessionId":"{11111111-2222-3333-4444-555555555555}","appId":"a"})");
    BOOST_TEST(r.response.status == 500);
    BOOST_TEST(header(r, "jsonerror") == "true");
    BOOST_TEST(r.response.body == R"({"Message":"Server was unable to process request (request id rid-1)."})");
    BOOST_TEST(r.log.detail == "cannot connect to the database");
}

BOOST_AUTO_TEST_CASE(an_unknown_operation_is_404_in_json) {
    const auto r = post_json("/GlobalApi.asmx/Nope", "{}");
    BOOST_TEST(r.response.status == 404);
    BOOST_TEST(header(r, "jsonerror") == "true");
    BOOST_TEST(r.response.body == R"({"Message":"Unknown operation \u0027Nope\u0027 in GlobalApi."})");
}

BOOST_AUTO_TEST_CASE(only_utf8_json_to_an_operation_path) {
    BOOST_TEST(post_json("/GlobalApi.asmx/GetUtcNow", "{}", "application/json").response.status == 200);
    BOOST_TEST(post_json("/GlobalApi.asmx/GetUtcNow", "{}", "Application/JSON; charset=UTF-8").response.status == 200);
    BOOST_TEST(post_json("/GlobalApi.asmx/GetUtcNow", "{}", "application/json; charset=utf-16").response.status == 415);
    BOOST_TEST(post_json("/GlobalApi.asmx", "{}").response.status == 415);  // JSON names its operation in the path
}

// Every error of a JSON call is {"Message"} with jsonerror, also those with an HTTP-level status.
BOOST_AUTO_TEST_CASE(a_json_calls_415_and_413_are_json) {
    const auto utf16 = post_json("/GlobalApi.asmx/GetUtcNow", "{}", "application/json; charset=utf-16");
    BOOST_TEST(utf16.response.status == 415);
    BOOST_TEST(utf16.response.content_type == "application/json; charset=utf-8");
    BOOST_TEST(header(utf16, "jsonerror") == "true");
    BOOST_TEST(utf16.response.body == R"({"Message":"A JSON request must be UTF-8."})");
    const auto to_group = post_json("/GlobalApi.asmx", "{}");
    BOOST_TEST(to_group.response.status == 415);
    BOOST_TEST(header(to_group, "jsonerror") == "true");

    auto big = t::request("POST", "/GlobalApi.asmx/GetUtcNow", {}, "application/json; charset=utf-8");
    big.body_too_large = true;
    const auto too_large = handle_request(big, db, cfg);
    BOOST_TEST(too_large.response.status == 413);
    BOOST_TEST(header(too_large, "jsonerror") == "true");
    BOOST_TEST(too_large.response.body == R"({"Message":"The request body is larger than 65536 bytes."})");
    BOOST_TEST(db.calls == 0);
}

// GET /openapi.json: the document generated from the operation table, one path per operation, the
// Idempotency-Key header on writes only.
BOOST_AUTO_TEST_CASE(openapi_json_describes_every_operation) {
    const auto h = get("/openapi.json");
    BOOST_TEST(h.response.status == 200);
    BOOST_TEST(h.response.content_type == "application/json; charset=utf-8");
    BOOST_TEST(h.response.body.starts_with("{\n  \"openapi\": \"3.1.0\""));
    std::size_t writes = 0;
    for (const auto& op : operations()) {
        const auto path = "\"/" + std::string{group_name(op.group)} + ".asmx/" + std::string{op.name} + "\": {";
        BOOST_TEST(h.response.body.find(path) != std::string::npos, op.name);
        if (op.effect == call_effect::writes) ++writes;
    }
    std::size_t key_params = 0;
    for (auto at = h.response.body.find("#/components/parameters/IdempotencyKey"); at != std::string::npos;
         at = h.response.body.find("#/components/parameters/IdempotencyKey", at + 1)) {
        ++key_params;
    }
    BOOST_TEST(key_params == writes);
    BOOST_TEST(db.calls == 0);
}

// GET /openapi: Swagger UI's page where the test form is (this host by default), 403 elsewhere.
BOOST_AUTO_TEST_CASE(the_openapi_page_follows_the_test_form_setting) {
    const auto page = get("/openapi");
    BOOST_TEST(page.response.status == 200);
    BOOST_TEST(page.response.content_type == "text/html; charset=utf-8");
    BOOST_TEST(page.response.body.find("<script src=\"/openapi/swagger-ui-bundle.js\"></script>") != std::string::npos);
    BOOST_TEST(header(page, "Content-Security-Policy").find("script-src 'self'") != std::string::npos);
    BOOST_TEST(get("/openapi", "192.0.2.7").response.status == 403);
    cfg.test_form = test_form_access::any;
    BOOST_TEST(get("/openapi", "192.0.2.7").response.status == 200);
    cfg.test_form = test_form_access::off;
    BOOST_TEST(get("/openapi").response.status == 403);
}

BOOST_AUTO_TEST_SUITE_END()
