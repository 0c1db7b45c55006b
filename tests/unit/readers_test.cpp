#include <boost/test/unit_test.hpp>

#include "tests/support/printers.hpp"

#include "core/api/fault.hpp"
#include "core/wire/form_reader.hpp"
#include "core/wire/media_type.hpp"
#include "core/wire/soap_reader.hpp"
#include "tests/support/soap_messages.hpp"

using namespace keeper::core;
namespace t = keeper::test;

namespace {

fault_kind kind_of_failure(std::string_view body, soap_version v = soap_version::v11) {
    try {
        read_soap(body, v);
    } catch (const fault& f) {
        return f.kind();
    }
    BOOST_FAIL("expected a fault");
    return fault_kind::server;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(form_reader)

BOOST_AUTO_TEST_CASE(decodes_percent_escapes_and_plus) {
    const auto f = read_form("a=1+2&b=%D0%AF%20x&c=&d");
    BOOST_TEST(f.find("a")->second == "1 2");
    BOOST_TEST(f.find("b")->second == "\xD0\xAF x");
    BOOST_TEST(f.find("c")->second == "");
    BOOST_TEST(f.count("d") == 1u);
}

BOOST_AUTO_TEST_CASE(keeps_names_case_sensitive_and_repeats) {
    const auto f = read_form("Name=1&name=2&name=3");
    BOOST_TEST(f.count("Name") == 1u);
    BOOST_TEST(f.count("name") == 2u);
}

BOOST_AUTO_TEST_CASE(refuses_a_broken_percent_escape) {
    BOOST_CHECK_THROW(read_form("a=%4"), fault);
    BOOST_CHECK_THROW(read_form("a=%zz"), fault);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(media_type_parser)

BOOST_AUTO_TEST_CASE(reads_essence_and_parameters) {
    const auto m = parse_media_type(R"(Application/SOAP+XML; charset=utf-8; action="http://tempuri.org/GetUtcNow")");
    BOOST_TEST(m.essence == "application/soap+xml");
    BOOST_TEST(m.params.at("charset") == "utf-8");
    BOOST_TEST(m.params.at("action") == "http://tempuri.org/GetUtcNow");
}

BOOST_AUTO_TEST_CASE(a_quoted_value_may_hold_a_semicolon) {
    const auto m = parse_media_type(R"(application/soap+xml;action="urn:a;b";charset=utf-8)");
    BOOST_TEST(m.params.at("action") == "urn:a;b");
    BOOST_TEST(m.params.at("charset") == "utf-8");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(soap_reader)

BOOST_AUTO_TEST_CASE(reads_the_wrapper_and_its_children) {
    const auto msg = read_soap(t::soap11("Authenticate", {{"sessionId", "s1"}, {"login", "Bob"}}), soap_version::v11);
    BOOST_TEST(msg.body_name == "Authenticate");
    BOOST_TEST(msg.body_ns == "http://tempuri.org/");
    BOOST_TEST_REQUIRE(msg.children.size() == 2u);
    BOOST_TEST(msg.children[1].name == "login");
    BOOST_TEST(msg.children[1].text == "Bob");
    BOOST_TEST(!msg.children[1].nil);
}

BOOST_AUTO_TEST_CASE(sees_xsi_nil) {
    const auto body = t::envelope(
        t::soap11_ns,
        R"(<Op xmlns="http://tempuri.org/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><a xsi:nil="true"/></Op>)");
    BOOST_TEST(read_soap(body, soap_version::v11).children.at(0).nil);
}

BOOST_AUTO_TEST_CASE(empty_body_and_broken_xml_are_malformed) {
    BOOST_TEST(kind_of_failure("") == fault_kind::malformed);
    BOOST_TEST(kind_of_failure("<soap:Envelope") == fault_kind::malformed);
    BOOST_TEST(kind_of_failure("not xml at all") == fault_kind::malformed);
}

BOOST_AUTO_TEST_CASE(any_doctype_is_refused_before_entities_are_defined) {
    const std::string laughs =
        R"(<?xml version="1.0"?><!DOCTYPE l [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]><l>&c;</l>)";
    BOOST_TEST(kind_of_failure(laughs) == fault_kind::malformed);
    const std::string external =
        R"(<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><x>&e;</x>)";
    BOOST_TEST(kind_of_failure(external) == fault_kind::malformed);
    const std::string plain =
        "<!DOCTYPE html><soap:Envelope xmlns:soap=\"" + t::soap11_ns + "\"><soap:Body/></soap:Envelope>";
    BOOST_TEST(kind_of_failure(plain) == fault_kind::malformed);
}

BOOST_AUTO_TEST_CASE(the_envelope_namespace_must_match_the_version) {
    BOOST_TEST(kind_of_failure(t::soap12("GetUtcNow", {}), soap_version::v11) == fault_kind::version_mismatch);
    BOOST_TEST(kind_of_failure(t::soap11("GetUtcNow", {}), soap_version::v12) == fault_kind::version_mismatch);
    BOOST_TEST(kind_of_failure("<Envelope><Body/></Envelope>") == fault_kind::version_mismatch);
    BOOST_TEST(kind_of_failure("<root/>") == fault_kind::version_mismatch);
}

BOOST_AUTO_TEST_CASE(must_understand_header_blocks_are_refused) {
    const auto with = [](std::string_view value, const std::string& env_ns) {
        return t::envelope(env_ns, t::wrapper("GetUtcNow", {}),
                           R"(<h:Auth xmlns:h="urn:x" soap:mustUnderstand=")" + std::string{value} + R"(">x</h:Auth>)");
    };
    BOOST_TEST(kind_of_failure(with("1", t::soap11_ns)) == fault_kind::must_understand);
    BOOST_TEST(kind_of_failure(with("true", t::soap12_ns), soap_version::v12) == fault_kind::must_understand);
    BOOST_CHECK_NO_THROW(read_soap(with("0", t::soap11_ns), soap_version::v11));
    BOOST_CHECK_NO_THROW(read_soap(with("false", t::soap12_ns), soap_version::v12));
}

BOOST_AUTO_TEST_CASE(other_header_blocks_are_ignored) {
    const auto body = t::envelope(t::soap11_ns, t::wrapper("GetUtcNow", {}), R"(<h:Trace xmlns:h="urn:x">1</h:Trace>)");
    BOOST_TEST(read_soap(body, soap_version::v11).body_name == "GetUtcNow");
}

// A parameter's text is all the text inside it, as libxml2's xmlNodeGetContent reads a node:
// character and entity references resolved, CDATA as text, nested elements' text in order.
BOOST_AUTO_TEST_CASE(a_parameters_text_is_all_the_text_inside_it) {
    const auto body = t::envelope(t::soap11_ns, R"(<Op xmlns="http://tempuri.org/"> <!-- c -->)"
                                                R"(<a>x&amp;&#49;<![CDATA[<y>]]><b>z<c>w</c></b>!</a>)"
                                                R"(<b/></Op><After xmlns="urn:x"><d>no</d></After>)");
    const auto msg = read_soap(body, soap_version::v11);
    BOOST_TEST(msg.body_name == "Op");
    BOOST_TEST_REQUIRE(msg.children.size() == 2u);
    BOOST_TEST(msg.children[0].text == "x&1<y>zw!");
    BOOST_TEST(msg.children[1].name == "b");
    BOOST_TEST(msg.children[1].text == "");
}

// mustUnderstand counts only in the envelope's namespace, and only on a header block itself.
BOOST_AUTO_TEST_CASE(must_understand_of_another_namespace_or_depth_is_ignored) {
    const auto body = t::envelope(t::soap11_ns, t::wrapper("GetUtcNow", {}),
                                  R"(<h:A xmlns:h="urn:x" xmlns:o="urn:other" o:mustUnderstand="1">)"
                                  R"(<h:B soap:mustUnderstand="1"/></h:A>)");
    BOOST_TEST(read_soap(body, soap_version::v11).body_name == "GetUtcNow");
}

// Well-formedness is the whole document's: a fault after the Body is still malformed XML.
BOOST_AUTO_TEST_CASE(a_fault_after_the_body_is_still_malformed) {
    BOOST_TEST(kind_of_failure(t::soap11("GetUtcNow", {}) + "<extra>") == fault_kind::malformed);
}

BOOST_AUTO_TEST_CASE(a_missing_body_or_operation_element_is_a_client_fault) {
    BOOST_TEST(kind_of_failure("<soap:Envelope xmlns:soap=\"" + t::soap11_ns + "\"/>") == fault_kind::client);
    BOOST_TEST(kind_of_failure(t::envelope(t::soap11_ns, "")) == fault_kind::client);
}

BOOST_AUTO_TEST_SUITE_END()
