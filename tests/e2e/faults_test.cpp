// Faults (docs/api-decisions.md, Errors), as a client sees them through nginx.
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <regex>
#include <set>
#include <thread>

#include "stack_fixture.hpp"
#include "tests/support/files.hpp"

using namespace keeper::test;

namespace {

struct faults_fixture : stack_fixture {
    http_reply post_xml(const std::string& path, const std::string& content_type, const std::string& body,
                        std::map<std::string, std::string> extra = {}) {
        extra["Content-Type"] = content_type;
        return http_request(port, "POST", path, extra, body);
    }
    static bool has(const http_reply& r, const std::string& text) { return r.body.find(text) != std::string::npos; }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(e2e_faults, faults_fixture)

BOOST_AUTO_TEST_CASE(malformed_xml_empty_body_and_doctype_are_400_with_a_client_fault) {
    const auto bad = post_xml("/GlobalApi.asmx", "text/xml; charset=utf-8", "<soap:Envelope");
    BOOST_TEST(bad.status == 400);
    BOOST_TEST(has(bad, "<faultcode>soap:Client</faultcode>"));
    const auto empty = post_xml("/GlobalApi.asmx", "text/xml; charset=utf-8", "");
    BOOST_TEST(empty.status == 400);
    BOOST_TEST(has(empty, "empty"));
    const auto doctype =
        post_xml("/GlobalApi.asmx", "application/soap+xml",
                 R"(<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><x>&e;</x>)");
    BOOST_TEST(doctype.status == 400);
    BOOST_TEST(has(doctype, "<soap:Value>soap:Sender</soap:Value>"));
    BOOST_TEST(!has(doctype, "root:"));
}

BOOST_AUTO_TEST_CASE(the_wrong_envelope_version_is_version_mismatch) {
    const auto r = post_xml("/GlobalApi.asmx", "text/xml; charset=utf-8", soap12("GetUtcNow", {}));
    BOOST_TEST(r.status == 500);
    BOOST_TEST(has(r, "<faultcode>soap:VersionMismatch</faultcode>"));
    const auto r12 = post_xml("/GlobalApi.asmx", "application/soap+xml; charset=utf-8", "<Envelope/>");
    BOOST_TEST(r12.status == 500);
    BOOST_TEST(has(r12, "<soap:Value>soap:VersionMismatch</soap:Value>"));
}

BOOST_AUTO_TEST_CASE(a_must_understand_header_is_refused) {
    const auto body =
        envelope(soap11_ns, wrapper("GetUtcNow", {}), R"(<h:Security xmlns:h="urn:sec" soap:mustUnderstand="1"/>)");
    const auto r = post_xml("/GlobalApi.asmx", "text/xml; charset=utf-8", body);
    BOOST_TEST(r.status == 500);
    BOOST_TEST(has(r, "<faultcode>soap:MustUnderstand</faultcode>"));
}

BOOST_AUTO_TEST_CASE(unknown_actions_body_elements_and_mismatches_are_client_faults) {
    const auto action = post_xml("/GlobalApi.asmx", "text/xml; charset=utf-8", soap11("GetUtcNow", {}),
                                 {{"SOAPAction", "\"http://tempuri.org/Nope\""}});
    BOOST_TEST(action.status == 500);
    BOOST_TEST(has(action, "soap:Client"));
    BOOST_TEST(has(action, "http://tempuri.org/Nope"));
    const auto element = post_xml("/GlobalApi.asmx", "application/soap+xml", soap12("Nope", {}));
    BOOST_TEST(element.status == 500);
    BOOST_TEST(has(element, "soap:Sender"));
    const auto mismatch = post_xml("/ErrorsApi.asmx", "text/xml", soap11("GetUtcNow", {}),
                                   {{"SOAPAction", "http://tempuri.org/GetErrorDesc"}});
    BOOST_TEST(mismatch.status == 500);
    BOOST_TEST(has(mismatch, "soap:Client"));
}

BOOST_AUTO_TEST_CASE(an_undecodable_soap_value_is_a_client_fault_naming_it) {
    const auto r = soap11_call("ErrorsApi", "GetErrorDesc", {{"errorCode", "four"}, {"cultureCode", "1033"}});
    BOOST_TEST(r.status == 500);
    BOOST_TEST(has(r, "errorCode"));
    BOOST_TEST(has(r, "four"));
}

BOOST_AUTO_TEST_CASE(a_post_that_is_neither_soap_nor_form_is_415) {
    BOOST_TEST(post_xml("/GlobalApi.asmx", "application/json", "{}").status == 415);
    BOOST_TEST(post_xml("/GlobalApi.asmx/GetUtcNow", "text/xml", "").status == 415);
}

BOOST_AUTO_TEST_CASE(form_parameter_problems_are_400_one_line_naming_the_parameter) {
    const auto missing = get_call("ErrorsApi", "GetErrorDesc", {{"errorCode", "1"}});
    BOOST_TEST(missing.status == 400);
    BOOST_TEST(missing.header("content-type") == "text/plain; charset=utf-8");
    BOOST_TEST(missing.body == "Missing parameter: cultureCode.\r\n");
    const auto bad = post_call("ErrorsApi", "GetErrorDesc", {{"errorCode", "1"}, {"cultureCode", "12,5"}});
    BOOST_TEST(bad.status == 400);
    BOOST_TEST(has(bad, "cultureCode"));
}

BOOST_AUTO_TEST_CASE(unknown_operations_and_groups_are_404) {
    BOOST_TEST(get_call("GlobalApi", "Nope", {}).status == 404);
    BOOST_TEST(post_call("GlobalApi", "Nope", {}).status == 404);
    BOOST_TEST(http_get(port, "/NopeApi.asmx").status == 404);
    BOOST_TEST(http_get(port, "/globalapi.asmx/GetUtcNow").status == 404);
}

BOOST_AUTO_TEST_CASE(other_methods_are_405) {
    for (const std::string method : {"HEAD", "PUT", "DELETE", "OPTIONS"}) {
        const auto r = http_request(port, method, "/GlobalApi.asmx/GetUtcNow");
        BOOST_TEST(r.status == 405, method);
    }
    BOOST_TEST(http_request(port, "PUT", "/AccountApi.asmx", {{"Content-Type", "text/xml"}}, "<a/>").status == 405);
}

BOOST_AUTO_TEST_CASE(a_body_over_64_kib_is_413_and_one_at_the_limit_is_read) {
    const std::string pad(70000, ' ');
    const auto too_large = post_xml("/GlobalApi.asmx", "text/xml", soap11("GetUtcNow", {}) + pad);
    BOOST_TEST(too_large.status == 413);
    BOOST_TEST(too_large.header("x-request-id").size() == 32u);  // nginx's own answers carry the id too
    const auto base = soap11("GetUtcNow", {});
    const auto at_limit = base + std::string(65536 - base.size(), ' ');
    BOOST_TEST(post_xml("/GlobalApi.asmx", "text/xml", at_limit).status == 200);
}

BOOST_AUTO_TEST_CASE(the_openapi_document_is_served_through_nginx) {
    const auto r = http_get(port, "/openapi.json");
    BOOST_TEST(r.status == 200);
    BOOST_TEST(r.header("content-type") == "application/json; charset=utf-8");
    BOOST_TEST(r.body.find("\"openapi\": \"3.1.0\"") != std::string::npos);
    BOOST_TEST(r.body.find("\"/AccountApi.asmx/SetAccountPermits\"") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(health_live_and_ready_answer_get_and_head_through_nginx) {
    const std::pair<const char*, const char*> checks[] = {
        {"/health", "ok\r\n"}, {"/live", "live\r\n"}, {"/ready", "ready\r\n"}};
    for (const auto& [path, body] : checks) {
        BOOST_TEST_CONTEXT(path) {
            const auto r = http_get(port, path);
            BOOST_TEST(r.status == 200);
            BOOST_TEST(r.body == body);
            const auto head = http_request(port, "HEAD", path, {}, "");
            BOOST_TEST(head.status == 200);
            BOOST_TEST(head.body.empty());
            BOOST_TEST(http_request(port, "POST", path, {{"Content-Type", "text/plain"}}, "x").status == 405);
        }
    }
}

BOOST_AUTO_TEST_CASE(metrics_sum_every_workers_requests) {
    const auto counter = [&] {
        const auto text = http_get(port, "/metrics").body;
        const std::string series =
            R"(keeper_requests_total{group="ErrorsApi",operation="GetErrorDesc",transport="post",outcome="ok"} )";
        const auto at = text.find(series);
        return at == std::string::npos ? 0L : std::stol(text.substr(at + series.size()));
    };
    const auto before = counter();
    for (int i = 0; i < 40; ++i) post_call("ErrorsApi", "GetErrorDesc", {{"errorCode", "1"}, {"cultureCode", "1033"}});
    // 40 calls spread over every worker, all counted (other suites running at the same time may
    // add their own calls of this operation, never take any away). A worker counts a call just
    // after its response has left (pool/worker.cpp), so a scrape may race the last one or two:
    // read again for a moment rather than fail on that race. A call never counted still fails.
    auto after = counter();
    for (int tries = 0; after < before + 40 && tries < 100; ++tries) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        after = counter();
    }
    BOOST_TEST(after >= before + 40);
    const auto r = http_get(port, "/metrics");
    BOOST_TEST(r.header("content-type") == "text/plain; version=0.0.4; charset=utf-8");
    BOOST_TEST(r.body.find("# TYPE keeper_request_duration_seconds histogram") != std::string::npos);
}

// W3C Trace Context through nginx (docs/api-decisions.md, "Trace context"): a client's trace is
// continued, with nginx's hop as the worker's parent; without one (or with one that is not
// valid) a trace starts, its id the request id. The trace id is in the traceresponse header,
// nginx's access line and keeper's log line.
BOOST_AUTO_TEST_CASE(a_calls_trace_is_continued_or_started_and_logged) {
    const std::string trace = "4bf92f3577b34da6a3ce929d0e0e4736";
    const auto continued =
        http_request(port, "GET", "/GlobalApi.asmx/GetUtcNow",
                     {{"traceparent", "00-" + trace + "-00f067aa0ba902b7-01"}, {"X-Request-Id", "client-7"}});
    BOOST_TEST(continued.status == 200);
    const auto answer = continued.header("traceresponse");
    BOOST_TEST(answer.starts_with("00-" + trace + "-"), answer);
    BOOST_TEST(answer.ends_with("-01"), answer);
    BOOST_TEST(answer.find("00f067aa0ba902b7") == std::string::npos, answer);  // nginx's span, not the client's
    const auto started = http_get(port, "/GlobalApi.asmx/GetUtcNow");
    BOOST_TEST(started.header("traceresponse").starts_with("00-" + started.header("x-request-id") + "-"));
    BOOST_TEST(started.header("traceresponse").ends_with("-00"));
    const auto zeros = http_request(port, "GET", "/GlobalApi.asmx/GetUtcNow",
                                    {{"traceparent", "00-00000000000000000000000000000000-00f067aa0ba902b7-01"}});
    BOOST_TEST(zeros.header("traceresponse").starts_with("00-" + zeros.header("x-request-id") + "-"));
    // Each a whole traceparent: nginx's span 16 hex digits, not all zeros, and its own in each call.
    const std::regex traceparent{"00-[0-9a-f]{32}-(?!0{16})([0-9a-f]{16})-[0-9a-f]{2}"};
    std::set<std::string> spans;
    for (const auto* call : {&continued, &started, &zeros}) {
        const auto value = call->header("traceresponse");
        std::smatch m;
        BOOST_TEST(std::regex_match(value, m, traceparent), value);
        spans.insert(m.size() > 1 ? m[1].str() : "");
    }
    BOOST_TEST(spans.size() == 3u);

    const auto logged = [&](const std::string& file, const std::string& text) {
        for (int i = 0; i < 50; ++i) {  // nginx logs after it answered; keeper within 20 ms
            if (read_file(stack_state_dir() + "/log/" + file).find(text) != std::string::npos) return true;
            std::this_thread::sleep_for(std::chrono::milliseconds{50});
        }
        return false;
    };
    const auto rid = continued.header("x-request-id");
    BOOST_TEST(
        logged("nginx-access.log", "request_id=" + rid + " trace_id=" + trace + " client_request_id=\"client-7\""));
    BOOST_TEST(logged("keeper.log", "request_id=" + rid + " trace_id=" + trace + " group=GlobalApi"));
    BOOST_TEST(logged("keeper.log",
                      "request_id=" + started.header("x-request-id") + " trace_id=" + started.header("x-request-id")));

    // A call that reaches the database: its audit row holds the client's trace id (audit_calls
    // shows the request id for a trace nginx started).
    const fields call{{"sessionId", unique("trace")}, {"login", unique("nobody")}, {"authHash", std::string(32, 'f')}};
    call_headers = {{"traceparent", "00-" + trace + "-00f067aa0ba902b7-01"}};
    const auto audited = get_call("SimpleAuthApi", "Authenticate", call).header("x-request-id");
    call_headers.clear();
    const auto own = get_call("SimpleAuthApi", "Authenticate", call).header("x-request-id");
    BOOST_TEST(count("SELECT count(*) FROM audit_calls WHERE request_id = '" + audited + "' AND trace_id = '" + trace +
                     "'") == 1);
    BOOST_TEST(count("SELECT count(*) FROM audit_calls WHERE request_id = '" + own + "' AND trace_id = request_id") ==
               1);
}

BOOST_AUTO_TEST_SUITE_END()
