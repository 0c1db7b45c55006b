#include <boost/test/unit_test.hpp>

#include "tests/support/printers.hpp"

#include "core/domain/operation_table.hpp"
#include "core/wire/response_writer.hpp"
#include "core/api/http_status.hpp"

#include <set>
#include "core/api/text_util.hpp"

#include <libxml/parser.h>
#include "tests/support/soap_messages.hpp"

using namespace keeper::core;
namespace t = keeper::test;

namespace {

const operation& op(api_group g, std::string_view name) { return *find_operation(g, name); }

const std::string soap11_fault_prefix =
    R"(<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema"><soap:Body><soap:Fault>)";
const std::string soap12_fault_prefix =
    R"(<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://www.w3.org/2003/05/soap-envelope" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema"><soap:Body><soap:Fault>)";

}  // namespace

BOOST_AUTO_TEST_SUITE(response_writer)

BOOST_AUTO_TEST_CASE(soap11_success_is_byte_for_byte_asmx) {
    const auto r = write_result(transport::soap11, op(api_group::simple_auth, "Authenticate"), result_code::ok,
                                "http://tempuri.org/");
    BOOST_TEST(r.status == 200);
    BOOST_TEST(r.content_type == "text/xml; charset=utf-8");
    BOOST_TEST(r.body == t::soap_success(t::soap11_ns, "Authenticate", "0"));
}

BOOST_AUTO_TEST_CASE(soap12_success_binds_soap_to_the_12_namespace) {
    const auto r = write_result(transport::soap12, op(api_group::account, "CheckSessionEx"),
                                result_code::unknown_application, "http://tempuri.org/");
    BOOST_TEST(r.content_type == "application/soap+xml; charset=utf-8");
    BOOST_TEST(r.body == t::soap_success(t::soap12_ns, "CheckSessionEx", "10"));
}

BOOST_AUTO_TEST_CASE(plain_results_are_the_bare_typed_element) {
    const auto& desc = op(api_group::errors, "GetErrorDesc");
    const auto r = write_result(transport::http_get, desc, std::string{"a <b> & c"}, "http://tempuri.org/");
    BOOST_TEST(r.content_type == "text/xml; charset=utf-8");
    BOOST_TEST(r.body == t::plain_success("string", "a &lt;b&gt; &amp; c"));
    const auto i = write_result(transport::http_post, op(api_group::simple_auth, "Authenticate"),
                                result_code::auth_failed, "http://tempuri.org/");
    BOOST_TEST(i.body == t::plain_success("int", "4"));
}

BOOST_AUTO_TEST_CASE(date_time_results_use_the_asmx_format) {
    using namespace std::chrono;
    const keeper::core::utc_time when = sys_days{2026y / 11 / 22} + 1h + 46min + 25s + 1054us;
    const auto r = write_result(transport::http_get, op(api_group::global, "GetUtcNow"), when, "http://tempuri.org/");
    BOOST_TEST(r.body == t::plain_success("dateTime", "2026-11-22T01:46:25.001054Z"));
}

BOOST_AUTO_TEST_CASE(soap11_client_fault_has_faultcode_faultstring_and_empty_detail) {
    const auto r = write_fault(transport::soap11, fault{fault_kind::client, "Parameter 'x' is <bad>."});
    BOOST_TEST(r.status == 500);
    BOOST_TEST(r.body == soap11_fault_prefix +
                             "<faultcode>soap:Client</faultcode><faultstring>Parameter 'x' is "
                             "&lt;bad&gt;.</faultstring><detail /></soap:Fault></soap:Body></soap:Envelope>");
}

BOOST_AUTO_TEST_CASE(soap12_sender_fault_has_code_reason_and_empty_detail) {
    const auto r = write_fault(transport::soap12, fault{fault_kind::client, "No."});
    BOOST_TEST(r.status == 500);
    BOOST_TEST(r.content_type == "application/soap+xml; charset=utf-8");
    BOOST_TEST(
        r.body ==
        soap12_fault_prefix +
            R"(<soap:Code><soap:Value>soap:Sender</soap:Value></soap:Code><soap:Reason><soap:Text xml:lang="en">No.</soap:Text></soap:Reason><soap:Detail /></soap:Fault></soap:Body></soap:Envelope>)");
}

BOOST_AUTO_TEST_CASE(fault_codes_per_kind_and_version) {
    const auto code11 = [](fault_kind k) { return write_fault(transport::soap11, fault{k, "r"}).body; };
    const auto code12 = [](fault_kind k) { return write_fault(transport::soap12, fault{k, "r"}).body; };
    BOOST_TEST(code11(fault_kind::server).find("<faultcode>soap:Server</faultcode>") != std::string::npos);
    BOOST_TEST(code12(fault_kind::server).find("<soap:Value>soap:Receiver</soap:Value>") != std::string::npos);
    BOOST_TEST(code11(fault_kind::version_mismatch).find("<faultcode>soap:VersionMismatch</faultcode>") !=
               std::string::npos);
    BOOST_TEST(code12(fault_kind::version_mismatch).find("<soap:Value>soap:VersionMismatch</soap:Value>") !=
               std::string::npos);
    BOOST_TEST(code11(fault_kind::must_understand).find("<faultcode>soap:MustUnderstand</faultcode>") !=
               std::string::npos);
    BOOST_TEST(code12(fault_kind::must_understand).find("<soap:Value>soap:MustUnderstand</soap:Value>") !=
               std::string::npos);
    BOOST_TEST(code11(fault_kind::unknown_operation).find("<faultcode>soap:Client</faultcode>") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(malformed_soap_is_400_with_a_client_fault) {
    const auto r = write_fault(transport::soap11, fault{fault_kind::malformed, "bad"});
    BOOST_TEST(r.status == 400);
    BOOST_TEST(r.body.find("<faultcode>soap:Client</faultcode>") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(http_level_faults_are_plain_text_with_their_status) {
    BOOST_TEST(write_fault(transport::none, fault{fault_kind::method_not_allowed, "m"}).status == 405);
    BOOST_TEST(write_fault(transport::none, fault{fault_kind::method_not_allowed, "m"}).headers.at(0).second ==
               "GET, POST");
    BOOST_TEST(write_fault(transport::soap11, fault{fault_kind::unsupported_media_type, "m"}).status == 415);
    BOOST_TEST(write_fault(transport::soap11, fault{fault_kind::body_too_large, "m"}).status == 413);
    BOOST_TEST(write_fault(transport::none, fault{fault_kind::no_such_endpoint, "m"}).status == 404);
    BOOST_TEST(write_fault(transport::none, fault{fault_kind::no_such_endpoint, "m"}).content_type ==
               "text/plain; charset=utf-8");
}

BOOST_AUTO_TEST_CASE(http_level_faults_of_a_json_call_are_json_with_their_status) {
    const auto r = write_fault(transport::json, fault{fault_kind::body_too_large, "m"});
    BOOST_TEST(r.status == 413);
    BOOST_TEST(r.content_type == "application/json; charset=utf-8");
    BOOST_TEST(r.body == R"({"Message":"m"})");
    BOOST_TEST(write_fault(transport::json, fault{fault_kind::unsupported_media_type, "m"}).status == 415);
}

BOOST_AUTO_TEST_CASE(form_faults_are_one_plain_line) {
    const auto bad = write_fault(transport::http_get, fault{fault_kind::client, "Missing parameter: login."});
    BOOST_TEST(bad.status == 400);
    BOOST_TEST(bad.body == "Missing parameter: login.\r\n");
    BOOST_TEST(write_fault(transport::http_post, fault{fault_kind::unknown_operation, "u"}).status == 404);
    BOOST_TEST(write_fault(transport::http_post, fault{fault_kind::server, "s"}).status == 500);
}

// Whatever the client sent, a fault that quotes it is well-formed XML and a text line a terminal
// shows as is (the issue: a SOAPAction with \x01 made the fault unparseable).
BOOST_AUTO_TEST_CASE(a_fault_quoting_hostile_bytes_is_well_formed_xml_and_printable_text) {
    using namespace std::string_literals;
    const fault f{fault_kind::client,
                  "Server did not recognize the value of HTTP Header SOAPAction: \"\x01\x1B[2J\0\xFF\xC3<&>\"."s};
    BOOST_TEST(std::string{f.what()}.find("<&>") != std::string::npos);  // nothing after the NUL is lost
    for (const auto t : {transport::soap11, transport::soap12}) {
        const auto r = write_fault(t, f);
        xmlDocPtr doc = xmlReadMemory(r.body.data(), static_cast<int>(r.body.size()), nullptr, nullptr,
                                      XML_PARSE_NONET | XML_PARSE_NOERROR);
        BOOST_TEST(doc != nullptr, r.body);
        xmlFreeDoc(doc);
    }
    const auto text = write_fault(transport::http_get, f).body;
    for (const unsigned char c : text.substr(0, text.size() - 2))
        BOOST_TEST((c >= 0x20 && c != 0x7F), "byte " << int{c});
    BOOST_TEST(utf8_length(text).has_value());
    BOOST_TEST(std::string{fault(fault_kind::client, std::string(100000, 'x')).what()}.size() <=
               fault_reason_max_bytes + 3);
}

BOOST_AUTO_TEST_SUITE_END()

// The FastCGI front writes the reason phrase of core/api/http_status.hpp: every status a fault or
// a result can carry, over every transport, must be there (a status without its row would go out
// without a phrase).
BOOST_AUTO_TEST_SUITE(response_writer)  // continued: ctest runs it by this name

BOOST_AUTO_TEST_CASE(every_status_keeper_sends_has_its_reason_phrase) {
    std::set<int> sent;
    for (std::size_t t = 0; t < transport_count; ++t) {
        for (std::size_t k = 0; k < fault_kind_count; ++k) {
            sent.insert(write_fault(static_cast<transport>(t), fault(static_cast<fault_kind>(k), "x")).status);
        }
        if (static_cast<transport>(t) != transport::none) {
            sent.insert(write_result(static_cast<transport>(t), op(api_group::simple_auth, "Authenticate"),
                                     result_code::ok, "http://tempuri.org/")
                            .status);
        }
    }
    BOOST_TEST(sent.contains(409));
    BOOST_TEST(sent.contains(422));
    for (const int status : sent) BOOST_TEST(reason_phrase(status).has_value(), status);
    BOOST_TEST(*reason_phrase(409) == "Conflict");
    BOOST_TEST(!reason_phrase(418).has_value());
}

BOOST_AUTO_TEST_SUITE_END()
