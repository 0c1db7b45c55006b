// The pipeline end to end, without a socket or a database: routing, decoding, faults and the
// error boundary. The store here is one whose database is down, which proves two things: calls
// that need no database never touch it, and bad input is refused before the database is asked.
#include <boost/test/unit_test.hpp>

#include "tests/support/printers.hpp"

#include "core/api/date_time.hpp"
#include "core/pipeline/request_router.hpp"
#include "tests/support/soap_messages.hpp"
#include "tests/support/unreachable_store.hpp"

using namespace keeper::core;
namespace t = keeper::test;

namespace {

struct router_fixture {
    settings cfg;
    t::unreachable_store db;

    handled_request soap11(const std::string& path, const std::string& body, std::optional<std::string> action) {
        auto r = t::request("POST", path, {}, "text/xml; charset=utf-8", body);
        r.soap_action = std::move(action);
        return handle_request(r, db, cfg);
    }
    handled_request soap12(const std::string& path, const std::string& body,
                           const std::string& content_type = "application/soap+xml; charset=utf-8") {
        auto r = t::request("POST", path, {}, content_type, body);
        return handle_request(r, db, cfg);
    }
    handled_request get(const std::string& path, const std::string& query) {
        auto r = t::request("GET", path, query);
        return handle_request(r, db, cfg);
    }
    handled_request post_form(const std::string& path, const std::string& body, const std::string& query = {}) {
        auto r = t::request("POST", path, query, "application/x-www-form-urlencoded", body);
        return handle_request(r, db, cfg);
    }
};

std::string header_of(const http_response& r, std::string_view name) {
    for (const auto& [n, v] : r.headers) {
        if (n == name) return v;
    }
    return {};
}

const std::string desc_1049 = "Ошибка аутентификации.";

}  // namespace

BOOST_FIXTURE_TEST_SUITE(request_router, router_fixture)

BOOST_AUTO_TEST_CASE(soap11_is_routed_by_soapaction_with_or_without_quotes) {
    const auto body = t::soap11("GetErrorDesc", {{"errorCode", "4"}, {"cultureCode", "1049"}});
    for (const std::string action : {"\"http://tempuri.org/GetErrorDesc\"", "http://tempuri.org/GetErrorDesc"}) {
        const auto r = soap11("/ErrorsApi.asmx", body, action);
        BOOST_TEST(r.response.status == 200);
        BOOST_TEST(r.response.body == t::soap_success(t::soap11_ns, "GetErrorDesc", desc_1049));
    }
    BOOST_TEST(db.calls == 0);
}

BOOST_AUTO_TEST_CASE(soap11_without_soapaction_is_routed_by_the_body_element) {
    const auto r = soap11("/ErrorsApi.asmx", t::soap11("GetErrorDesc", {{"errorCode", "4"}, {"cultureCode", "1033"}}),
                          std::nullopt);
    BOOST_TEST(r.response.body == t::soap_success(t::soap11_ns, "GetErrorDesc", "Authentication failed."));
    const auto empty = soap11("/GlobalApi.asmx", t::soap11("GetUtcNow", {}), std::string{"\"\""});
    BOOST_TEST(empty.response.status == 200);
}

BOOST_AUTO_TEST_CASE(an_unknown_soapaction_is_a_client_fault_naming_it) {
    const auto r = soap11("/ErrorsApi.asmx", t::soap11("GetErrorDesc", {}), std::string{"\"http://tempuri.org/Nope\""});
    BOOST_TEST(r.response.status == 500);
    BOOST_TEST(r.response.body.find("<faultcode>soap:Client</faultcode>") != std::string::npos);
    BOOST_TEST(r.response.body.find("http://tempuri.org/Nope") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(an_operation_of_another_group_is_unknown_here) {
    const auto r =
        soap11("/GlobalApi.asmx", t::soap11("GetErrorDesc", {}), std::string{"http://tempuri.org/GetErrorDesc"});
    BOOST_TEST(r.response.status == 500);
    BOOST_TEST(r.log.outcome == "fault=client");
}

BOOST_AUTO_TEST_CASE(soapaction_and_body_naming_different_operations_is_refused) {
    const auto r =
        soap11("/AccountApi.asmx", t::soap11("CheckSessionEx", {}), std::string{"http://tempuri.org/GetUtcNow"});
    BOOST_TEST(r.response.status == 500);
    BOOST_TEST(r.response.body.find("<faultcode>soap:Client</faultcode>") != std::string::npos);
    const auto x =
        soap11("/ErrorsApi.asmx", t::soap11("GetUtcNow", {}), std::string{"http://tempuri.org/GetErrorDesc"});
    BOOST_TEST(x.response.body.find("soap:Client") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(an_unknown_body_element_or_namespace_is_a_client_fault) {
    BOOST_TEST(soap11("/GlobalApi.asmx", t::soap11("Nope", {}), std::nullopt).response.status == 500);
    const auto other_ns = t::envelope(t::soap11_ns, t::wrapper("GetUtcNow", {}, "urn:other"));
    const auto r = soap11("/GlobalApi.asmx", other_ns, std::nullopt);
    BOOST_TEST(r.response.body.find("{urn:other}GetUtcNow") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(soap12_uses_the_action_parameter_when_it_names_an_operation) {
    const auto body = t::soap12("GetErrorDesc", {{"errorCode", "0"}, {"cultureCode", "1033"}});
    const auto r = soap12("/ErrorsApi.asmx", body,
                          R"(application/soap+xml; charset=utf-8; action="http://tempuri.org/GetErrorDesc")");
    BOOST_TEST(r.response.body == t::soap_success(t::soap12_ns, "GetErrorDesc", "Success."));
    const auto unknown = soap12("/ErrorsApi.asmx", body, R"(application/soap+xml; action="urn:whatever")");
    BOOST_TEST(unknown.response.status == 200);  // an unknown action falls back to the body
    const auto clash = soap12("/ErrorsApi.asmx", t::soap12("GetUtcNow", {}),
                              R"(application/soap+xml; action="http://tempuri.org/GetErrorDesc")");
    BOOST_TEST(clash.response.body.find("<soap:Value>soap:Sender</soap:Value>") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(parameter_order_does_not_matter_and_unknown_elements_are_ignored) {
    const auto body = t::soap11("GetErrorDesc", {{"extra", "x"}, {"cultureCode", "1049"}, {"errorCode", " 4 "}});
    BOOST_TEST(soap11("/ErrorsApi.asmx", body, std::nullopt).response.body ==
               t::soap_success(t::soap11_ns, "GetErrorDesc", desc_1049));
}

BOOST_AUTO_TEST_CASE(a_missing_or_nil_element_gets_the_type_default) {
    const auto missing = soap11("/ErrorsApi.asmx", t::soap11("GetErrorDesc", {}), std::nullopt);
    BOOST_TEST(missing.response.body == t::soap_success(t::soap11_ns, "GetErrorDesc", "Success."));
    const auto nil = t::envelope(
        t::soap11_ns,
        R"(<GetErrorDesc xmlns="http://tempuri.org/" xmlns:i="http://www.w3.org/2001/XMLSchema-instance"><errorCode i:nil="true"/><cultureCode>1049</cultureCode></GetErrorDesc>)");
    BOOST_TEST(soap11("/ErrorsApi.asmx", nil, std::nullopt).response.body ==
               t::soap_success(t::soap11_ns, "GetErrorDesc", "Операция выполнена успешно."));
}

BOOST_AUTO_TEST_CASE(an_undecodable_soap_value_is_a_client_fault_naming_parameter_and_value) {
    const auto r = soap11("/ErrorsApi.asmx", t::soap11("GetErrorDesc", {{"errorCode", "99999999999"}}), std::nullopt);
    BOOST_TEST(r.response.status == 500);
    BOOST_TEST(r.response.body.find("errorCode") != std::string::npos);
    BOOST_TEST(r.response.body.find("99999999999") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(format_errors_answer_1_without_asking_the_database) {
    const auto r = get("/SimpleAuthApi.asmx/Authenticate",
                       "sessionId=bad%20id&login=bob&authHash=00000000000000000000000000000000");
    BOOST_TEST(r.response.body == t::plain_success("int", "1"));
    const auto s = soap11("/AccountApi.asmx", t::soap11("CheckSessionEx", {}), std::nullopt);  // null strings
    BOOST_TEST(s.response.body == t::soap_success(t::soap11_ns, "CheckSessionEx", "1"));
    BOOST_TEST(db.calls == 0);
}

BOOST_AUTO_TEST_CASE(a_database_failure_is_a_generic_server_fault_with_details_only_in_the_log) {
    const auto body =
        t::soap11("Authenticate", {{"sessionId", "abc"}, {"login", "bob"}, {"authHash", std::string(32, 'a')}});
    const auto r = soap11("/SimpleAuthApi.asmx", body, std::nullopt);
    BOOST_TEST(r.response.status == 500);
    BOOST_TEST(r.response.body.find("<faultcode>soap:Server</faultcode>") != std::string::npos);
    BOOST_TEST(r.response.body.find("rid-1") != std::string::npos);
    BOOST_TEST(r.response.body.find("database") == std::string::npos);
    BOOST_TEST(r.log.detail == "cannot connect to the database");
    BOOST_TEST(r.log.outcome == "fault=server");
    const auto g = get("/AccountApi.asmx/CheckSessionEx", "sessionId=abc&appId=x");
    BOOST_TEST(g.response.status == 500);
    BOOST_TEST(g.response.content_type == "text/plain; charset=utf-8");
    const auto s12 = soap12("/AccountApi.asmx", t::soap12("CheckSessionEx", {{"sessionId", "a"}, {"appId", "b"}}));
    BOOST_TEST(s12.response.body.find("<soap:Value>soap:Receiver</soap:Value>") != std::string::npos);
}

// A request that waited for a worker past its budget (nginx may have answered it already) runs
// nothing: 503 and Retry-After in its transport's shape (SOAP: a 500 Server fault, as SOAP's HTTP
// binding wants), saying nothing changed. One that waited less still runs.
BOOST_AUTO_TEST_CASE(a_call_whose_budget_was_spent_waiting_for_a_worker_is_not_applied_and_runs_nothing) {
    const auto long_ago = std::chrono::system_clock::now() - cfg.call_budget - std::chrono::seconds{1};
    const auto stale = [&](http_request r) {
        r.sent_at = long_ago;
        return handle_request(r, db, cfg);
    };
    const auto soap = stale(t::request("POST", "/AccountApi.asmx", {}, "text/xml; charset=utf-8",
                                       t::soap11("CheckSessionEx", {{"sessionId", "a"}, {"appId", "b"}})));
    BOOST_TEST(soap.response.status == 500);
    BOOST_TEST(soap.response.body.find("<faultcode>soap:Server</faultcode>") != std::string::npos);
    const auto get = stale(t::request("GET", "/AccountApi.asmx/CheckSessionEx", "sessionId=a&appId=b"));
    BOOST_TEST(get.response.status == 503);
    BOOST_TEST(get.response.content_type == "text/plain; charset=utf-8");
    const auto json = stale(t::request("POST", "/AccountApi.asmx/CheckSessionEx", {}, "application/json; charset=utf-8",
                                       R"({"sessionId":"a","appId":"b"})"));
    BOOST_TEST(json.response.status == 503);
    BOOST_TEST(json.response.body.starts_with(R"({"Message":"The call was not applied (request id rid-1))"));
    for (const auto* r : {&soap, &get, &json}) {
        BOOST_TEST(r->log.outcome == "fault=not_applied");
        BOOST_TEST(r->response.body.find("was not applied (request id rid-1)") != std::string::npos);
        BOOST_TEST(r->response.body.find("Nothing was changed") != std::string::npos);
        BOOST_TEST(header_of(r->response, "Retry-After") == "1");
    }
    BOOST_TEST(db.calls == 0);

    auto fresh = t::request("GET", "/AccountApi.asmx/CheckSessionEx", "sessionId=a&appId=b");
    fresh.sent_at = std::chrono::system_clock::now() - cfg.call_budget / 2;
    BOOST_TEST(handle_request(fresh, db, cfg).log.outcome == "fault=server");  // it ran: the database is down
    // Sent before (the retry socket): its first attempt may have run, so the store settles it.
    http_request retried = fresh;
    retried.sent_at = long_ago;
    retried.retried = true;
    BOOST_TEST(handle_request(retried, db, cfg).log.outcome == "fault=server");
    BOOST_TEST(db.calls == 2);
}

// Refused before it started (fcgi/admission.hpp, pool/answer_while_waiting.hpp): "not applied" in the
// request's shape, except a request sent before to a pool not ready yet (an earlier pool may have
// run it) and /health, which says why.
BOOST_AUTO_TEST_CASE(a_refused_request_is_not_applied_in_its_shape_unless_it_was_sent_before) {
    const auto get = t::request("GET", "/AccountApi.asmx/CheckSessionEx", "sessionId=a&appId=b");
    const auto busy = refuse_request(get);
    BOOST_TEST(busy.response.status == 503);
    BOOST_TEST(header_of(busy.response, "Retry-After") == "1");
    BOOST_TEST(busy.response.body ==
               "The call was not applied (request id rid-1): the service is busy. Nothing was changed; it "
               "may be repeated after Retry-After.\r\n");
    BOOST_TEST(busy.log.outcome == "fault=not_applied");
    BOOST_TEST(busy.log.group == "AccountApi");
    BOOST_TEST(busy.log.detail == "refused on arrival: no thread would have been free within admission_wait_ms");
    // The log line says how long after nginx first saw it (its request id's time) the refusal came: the wait before a
    // worker read it, beside duration_ms (the worker's own share).
    auto late = get;
    late.sent_at = std::chrono::system_clock::now() - std::chrono::milliseconds{120};
    const auto detail = refuse_request(late).log.detail;
    const auto after = detail.find("; ");
    BOOST_TEST_REQUIRE(after != std::string::npos, detail);
    BOOST_TEST(std::stoi(detail.substr(after + 2)) >= 120);
    BOOST_TEST(detail.ends_with(" ms after nginx first saw it"));

    const auto starting = refuse_request(get, refusal::not_ready, "database schema is version 3, this keeper needs 4");
    BOOST_TEST(starting.response.status == 503);
    BOOST_TEST(starting.response.body.find("the service is not ready yet") != std::string::npos);
    BOOST_TEST(starting.response.body.find("schema") == std::string::npos);  // the reason stays in the log
    BOOST_TEST(starting.log.detail == "not ready: database schema is version 3, this keeper needs 4");

    auto soap = t::request("POST", "/AccountApi.asmx", {}, "text/xml; charset=utf-8",
                           t::soap11("CheckSessionEx", {{"sessionId", "a"}, {"appId", "b"}}));
    const auto soap_busy = refuse_request(soap);
    BOOST_TEST(soap_busy.response.status == 500);
    BOOST_TEST(soap_busy.response.body.find("<faultcode>soap:Server</faultcode>") != std::string::npos);
    BOOST_TEST(header_of(soap_busy.response, "Retry-After") == "1");

    soap.retried = true;
    const auto again = refuse_request(soap, refusal::not_ready, "waiting");
    BOOST_TEST(again.response.status == 500);
    BOOST_TEST(again.response.body.find("outcome of the call is unknown (request id rid-1)") != std::string::npos);
    BOOST_TEST(header_of(again.response, "Retry-After").empty());

    const auto health = t::request("GET", "/health");
    const auto h = refuse_request(health, refusal::not_ready, "database schema is version 3, this keeper needs 4");
    BOOST_TEST(h.response.status == 503);
    BOOST_TEST(h.response.body == "not ready: database schema is version 3, this keeper needs 4\r\n");
    BOOST_TEST(db.calls == 0);
}

BOOST_AUTO_TEST_CASE(get_and_post_read_named_parameters) {
    const auto g = get("/ErrorsApi.asmx/GetErrorDesc", "cultureCode=1049&errorCode=4&unused=1");
    BOOST_TEST(g.response.body == t::plain_success("string", desc_1049));
    BOOST_TEST(g.log.via == transport::http_get);
    const auto p = post_form("/ErrorsApi.asmx/GetErrorDesc", "errorCode=4&cultureCode=1033");
    BOOST_TEST(p.response.body == t::plain_success("string", "Authentication failed."));
    BOOST_TEST(p.log.via == transport::http_post);
}

BOOST_AUTO_TEST_CASE(a_post_reads_only_its_form_body) {
    const auto p = post_form("/ErrorsApi.asmx/GetErrorDesc", "errorCode=4", "cultureCode=1049");
    BOOST_TEST(p.response.status == 400);
    BOOST_TEST(p.response.body == "Missing parameter: cultureCode.\r\n");
}

BOOST_AUTO_TEST_CASE(form_parameter_errors_are_400_naming_the_parameter) {
    BOOST_TEST(get("/ErrorsApi.asmx/GetErrorDesc", "errorCode=4").response.body ==
               "Missing parameter: cultureCode.\r\n");
    BOOST_TEST(get("/ErrorsApi.asmx/GetErrorDesc", "errorcode=4&cultureCode=1").response.body ==
               "Missing parameter: errorCode.\r\n");
    const auto bad = get("/ErrorsApi.asmx/GetErrorDesc", "errorCode=12,5&cultureCode=1");
    BOOST_TEST(bad.response.status == 400);
    BOOST_TEST(bad.response.body == "Parameter 'errorCode' has an invalid value '12,5': not a valid int.\r\n");
    BOOST_TEST(get("/ErrorsApi.asmx/GetErrorDesc", "errorCode=1&errorCode=2&cultureCode=1").response.status == 400);
    BOOST_TEST(get("/SimpleAuthApi.asmx/Authenticate", "sessionId=a&login=%FF&authHash=x").response.body ==
               "Parameter 'login' is not valid UTF-8.\r\n");
    BOOST_TEST(get("/ErrorsApi.asmx/GetErrorDesc", "errorCode=%G1").response.status == 400);
}

BOOST_AUTO_TEST_CASE(an_unknown_operation_in_the_path_is_404) {
    BOOST_TEST(get("/ErrorsApi.asmx/Nope", "").response.status == 404);
    BOOST_TEST(post_form("/ErrorsApi.asmx/getErrorDesc", "").response.status == 404);
    BOOST_TEST(get("/ErrorsApi.asmx/GetUtcNow", "").response.status == 404);
}

BOOST_AUTO_TEST_CASE(unknown_groups_and_paths_are_404) {
    BOOST_TEST(get("/Nope.asmx", "").response.status == 404);
    BOOST_TEST(get("/globalapi.asmx", "").response.status == 404);
    BOOST_TEST(get("/GlobalApi.asmx/GetUtcNow/more", "").response.status == 404);
}

BOOST_AUTO_TEST_CASE(other_methods_are_405) {
    for (const std::string method : {"HEAD", "PUT", "DELETE", "OPTIONS", "PATCH"}) {
        auto r = t::request(method, "/GlobalApi.asmx");
        const auto out = handle_request(r, db, cfg);
        BOOST_TEST(out.response.status == 405);
        BOOST_TEST(out.response.headers.at(0).first == "Allow");
    }
}

BOOST_AUTO_TEST_CASE(a_body_over_the_limit_is_413_before_parsing) {
    auto r = t::request("POST", "/GlobalApi.asmx", {}, "text/xml");
    r.body_too_large = true;
    BOOST_TEST(handle_request(r, db, cfg).response.status == 413);
}

BOOST_AUTO_TEST_CASE(a_post_that_is_neither_soap_nor_form_is_415) {
    BOOST_TEST(soap12("/GlobalApi.asmx", "{}", "application/json").response.status == 415);
    BOOST_TEST(soap12("/GlobalApi.asmx", "", "").response.status == 415);
    auto r = t::request("POST", "/GlobalApi.asmx/GetUtcNow", {}, "text/xml");
    BOOST_TEST(handle_request(r, db, cfg).response.status == 415);
}

BOOST_AUTO_TEST_CASE(malformed_soap_is_400_with_a_fault_that_says_why) {
    const auto r = soap11("/GlobalApi.asmx", "", std::nullopt);
    BOOST_TEST(r.response.status == 400);
    BOOST_TEST(r.response.body.find("empty") != std::string::npos);
    BOOST_TEST(soap11("/GlobalApi.asmx", "<a>", std::nullopt).response.status == 400);
    BOOST_TEST(soap12("/GlobalApi.asmx", "<a>").response.body.find("soap:Sender") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(version_mismatch_and_must_understand_are_500_faults) {
    const auto vm = soap11("/GlobalApi.asmx", t::soap12("GetUtcNow", {}), std::nullopt);
    BOOST_TEST(vm.response.status == 500);
    BOOST_TEST(vm.response.body.find("soap:VersionMismatch") != std::string::npos);
    const auto mu = soap12("/GlobalApi.asmx", t::envelope(t::soap12_ns, t::wrapper("GetUtcNow", {}),
                                                          R"(<x:A xmlns:x="urn:x" soap:mustUnderstand="true"/>)"));
    BOOST_TEST(mu.response.status == 500);
    BOOST_TEST(mu.response.body.find("<soap:Value>soap:MustUnderstand</soap:Value>") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(the_group_page_lists_its_operations) {
    const auto r = get("/AccountApi.asmx", "");
    BOOST_TEST(r.response.status == 200);
    BOOST_TEST(r.response.content_type == "text/html; charset=utf-8");
    BOOST_TEST(r.response.body.find("CheckSessionEx") != std::string::npos);
    BOOST_TEST(r.response.body.find("GetUtcNow") == std::string::npos);
    const auto header = [&](const std::string& name) {
        for (const auto& [n, v] : r.response.headers)
            if (n == name) return v;
        return std::string{};
    };
    BOOST_TEST(header("X-Content-Type-Options") == "nosniff");
    BOOST_TEST(header("Content-Security-Policy").find("default-src 'none'") == 0u);
}

BOOST_AUTO_TEST_CASE(health_says_503_when_the_database_is_unreachable) {
    const auto r = get("/health", "");
    BOOST_TEST(r.response.status == 503);
    BOOST_TEST(r.response.content_type == "text/plain; charset=utf-8");
    BOOST_TEST(r.log.outcome == "health=unavailable");
}

// /live never asks the database; /ready wants one that takes writes; both over GET and HEAD.
BOOST_AUTO_TEST_CASE(live_answers_without_the_database_and_ready_wants_a_primary) {
    const auto check = [&](const std::string& method, const std::string& path, keeper::core::store& st) {
        const auto r = t::request(method, path);
        return handle_request(r, st, cfg);
    };
    for (const std::string method : {"GET", "HEAD"}) {
        const auto live = check(method, "/live", db);
        BOOST_TEST(live.response.status == 200);
        BOOST_TEST(live.response.body == "live\r\n");
        BOOST_TEST(live.log.outcome == "live=ok");
        const auto ready = check(method, "/ready", db);
        BOOST_TEST(ready.response.status == 503);
        BOOST_TEST(ready.response.body == "not ready: database unreachable\r\n");
        BOOST_TEST(check(method, "/health", db).response.status == 503);
    }
    BOOST_TEST(db.calls == 0);  // the unreachable store counts calls, not checks

    struct standby_store : t::unreachable_store {
        bool healthy() override { return true; }
    } standby;
    BOOST_TEST(check("GET", "/ready", standby).response.body ==
               "not ready: the database takes no writes (a standby)\r\n");
    BOOST_TEST(check("GET", "/health", standby).response.status == 200);
    struct primary_store : standby_store {
        bool takes_writes() override { return true; }
    } primary;
    const auto ready = check("HEAD", "/ready", primary);
    BOOST_TEST(ready.response.status == 200);
    BOOST_TEST(ready.log.outcome == "ready=ok");

    const auto posted = check("POST", "/ready", primary);
    BOOST_TEST(posted.response.status == 405);
    BOOST_TEST(posted.response.body.find("use GET or HEAD") != std::string::npos);
}

// A pool that refuses calls (busy, or waiting for its schema) still says it lives, and is not ready.
BOOST_AUTO_TEST_CASE(a_refusing_pool_lives_and_is_not_ready) {
    const auto refused = [](const std::string& path, refusal why) {
        const auto r = t::request("HEAD", path);
        return refuse_request(r, why, "database schema is version 3, this keeper needs 4", 4);
    };
    for (const auto why : {refusal::busy, refusal::not_ready}) {
        BOOST_TEST(refused("/live", why).response.status == 200);
        BOOST_TEST(header_of(refused("/live", why).response, "Retry-After").empty());
        BOOST_TEST(refused("/ready", why).response.status == 503);
    }
    BOOST_TEST(refused("/ready", refusal::busy).response.body == "not ready: busy\r\n");
    BOOST_TEST(header_of(refused("/ready", refusal::busy).response, "Retry-After") == "4");
    BOOST_TEST(refused("/ready", refusal::not_ready).response.body ==
               "not ready: database schema is version 3, this keeper needs 4\r\n");
}

BOOST_AUTO_TEST_CASE(wsdl_in_any_case_disco_and_operation_pages_are_served) {
    for (const std::string q : {"WSDL", "wsdl", "wSdL"}) {
        const auto r = get("/GlobalApi.asmx", q);
        BOOST_TEST(r.response.status == 200);
        BOOST_TEST(r.response.content_type == "text/xml; charset=utf-8");
        BOOST_TEST(r.response.body.find(R"(<soap:address location="http://h/GlobalApi.asmx" />)") != std::string::npos);
    }
    auto tls = t::request("GET", "/api/GlobalApi.asmx", "wsdl");
    tls.host = "example.test";
    tls.scheme = "https";
    BOOST_TEST(
        handle_request(tls, db, cfg).response.body.find(R"(location="https://example.test/api/GlobalApi.asmx")") !=
        std::string::npos);
    BOOST_TEST(get("/GlobalApi.asmx", "disco").response.body.find("<discovery") != std::string::npos);
    const auto op = get("/GlobalApi.asmx", "op=GetUtcNow");
    BOOST_TEST(op.response.content_type == "text/html; charset=utf-8");
    BOOST_TEST(op.response.body.find("SOAP 1.2") != std::string::npos);
    BOOST_TEST(get("/GlobalApi.asmx", "op=Nope").response.status == 404);
    BOOST_TEST(get("/GlobalApi.asmx", "op=GetErrorDesc").response.status == 404);  // another group's
    BOOST_TEST(db.calls == 0);
}

// With public_base_url set, a forged Host changes no address a client generates its proxy from.
BOOST_AUTO_TEST_CASE(the_configured_origin_is_the_wsdls_address_whatever_the_host) {
    auto configured = cfg;
    configured.public_base_url = "https://api.example.com";
    const auto page = [&](const std::string& query) {
        auto r = t::request("GET", "/GlobalApi.asmx", query);
        r.host = "evil.example";
        r.remote_addr = "203.0.113.9";
        return handle_request(r, db, configured).response.body;
    };
    BOOST_TEST(page("wsdl").find(R"(<soap:address location="https://api.example.com/GlobalApi.asmx" />)") !=
               std::string::npos);
    BOOST_TEST(page("wsdl").find("evil.example") == std::string::npos);
    BOOST_TEST(page("disco").find("https://api.example.com/GlobalApi.asmx") != std::string::npos);
    BOOST_TEST(page("op=GetUtcNow").find("Host: api.example.com") != std::string::npos);
    BOOST_TEST(page("op=GetUtcNow").find("evil.example") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(the_test_form_is_for_loopback_unless_configured) {
    const auto page_from = [&](const std::string& addr) {
        auto r = t::request("GET", "/GlobalApi.asmx", "op=GetUtcNow");
        r.remote_addr = addr;
        return handle_request(r, db, cfg).response.body;
    };
    const auto has_form = [](const std::string& body) {
        return body.find("<form id=\"test-form\"") != std::string::npos;
    };
    for (const std::string local : {"127.0.0.1", "127.1.2.3", "::1", "::ffff:127.0.0.1"})
        BOOST_TEST(has_form(page_from(local)), local);
    for (const std::string remote : {"10.0.0.1", "::ffff:10.0.0.1", "", "1127.0.0.1"})
        BOOST_TEST(!has_form(page_from(remote)), remote);
    cfg.test_form = test_form_access::any;
    BOOST_TEST(has_form(page_from("10.0.0.1")));
    cfg.test_form = test_form_access::off;
    BOOST_TEST(!has_form(page_from("127.0.0.1")));
    const auto csp = [&] {
        auto r = t::request("GET", "/GlobalApi.asmx", "op=GetUtcNow");
        for (const auto& [n, v] : handle_request(r, db, cfg).response.headers)
            if (n == "Content-Security-Policy") return v;
        return std::string{};
    }();
    BOOST_TEST(csp.find("frame-src 'self'") != std::string::npos);  // the form's answer, and nothing else
    BOOST_TEST(csp.find("script-src") == std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
