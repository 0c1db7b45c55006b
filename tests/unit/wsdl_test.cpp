// The generated WSDL, disco and pages agree with the operation table.
#include <boost/test/unit_test.hpp>

#include "tests/support/printers.hpp"

#include <libxml/parser.h>
#include <libxml/xpath.h>
#include <libxml/xpathInternals.h>

#include <memory>
#include <set>

#include "core/pages/help_pages.hpp"
#include "core/domain/operation_table.hpp"
#include "core/pages/wsdl_writer.hpp"
#include "core/wire/transport_table.hpp"

using namespace keeper::core;

namespace {

// XPath over a generated document, with the WSDL prefixes bound.
class xml_doc {
public:
    explicit xml_doc(const std::string& text)
        : m_doc(xmlReadMemory(text.data(), static_cast<int>(text.size()), nullptr, nullptr, XML_PARSE_NONET),
                xmlFreeDoc) {}
    bool ok() const { return m_doc != nullptr; }
    std::vector<std::string> values(const char* xpath) const {
        std::unique_ptr<xmlXPathContext, decltype(&xmlXPathFreeContext)> ctx(xmlXPathNewContext(m_doc.get()),
                                                                             xmlXPathFreeContext);
        xmlXPathRegisterNs(ctx.get(), BAD_CAST "wsdl", BAD_CAST "http://schemas.xmlsoap.org/wsdl/");
        xmlXPathRegisterNs(ctx.get(), BAD_CAST "s", BAD_CAST "http://www.w3.org/2001/XMLSchema");
        xmlXPathRegisterNs(ctx.get(), BAD_CAST "soap", BAD_CAST "http://schemas.xmlsoap.org/wsdl/soap/");
        std::unique_ptr<xmlXPathObject, decltype(&xmlXPathFreeObject)> r(
            xmlXPathEvalExpression(BAD_CAST xpath, ctx.get()), xmlXPathFreeObject);
        std::vector<std::string> out;
        if (!r || !r->nodesetval) return out;
        for (int i = 0; i < r->nodesetval->nodeNr; ++i) {
            xmlChar* v = xmlNodeGetContent(r->nodesetval->nodeTab[i]);
            out.emplace_back(reinterpret_cast<const char*>(v));
            xmlFree(v);
        }
        return out;
    }

private:
    std::unique_ptr<xmlDoc, decltype(&xmlFreeDoc)> m_doc;
};

std::set<std::string> table_operations(api_group g) {
    std::set<std::string> out;
    for (const auto& op : operations()) {
        if (op.group == g) out.emplace(op.name);
    }
    return out;
}

std::set<std::string> as_set(const std::vector<std::string>& v) { return {v.begin(), v.end()}; }

}  // namespace

BOOST_AUTO_TEST_SUITE(wsdl)

BOOST_AUTO_TEST_CASE(every_port_type_and_binding_lists_exactly_the_tables_operations) {
    for (auto g : all_groups()) {
        const xml_doc doc{write_wsdl(g, "http://tempuri.org/", "http://h/x.asmx")};
        BOOST_TEST_REQUIRE(doc.ok());
        const auto expected = table_operations(g);
        const std::string name{group_name(g)};
        for (const std::string suffix : {"Soap", "HttpGet", "HttpPost"}) {
            const auto path = "//wsdl:portType[@name='" + name + suffix + "']/wsdl:operation/@name";
            BOOST_TEST((as_set(doc.values(path.c_str())) == expected), name << suffix);
        }
        for (const std::string suffix : {"Soap", "Soap12", "HttpGet", "HttpPost"}) {
            const auto path = "//wsdl:binding[@name='" + name + suffix + "']/wsdl:operation/@name";
            BOOST_TEST((as_set(doc.values(path.c_str())) == expected), name << suffix);
        }
        BOOST_TEST(doc.values("//wsdl:port").size() == 4u);
    }
}

BOOST_AUTO_TEST_CASE(wrapper_elements_carry_every_parameter_in_order) {
    const xml_doc doc{write_wsdl(api_group::account, "http://tempuri.org/", "http://h/a")};
    const auto names = doc.values("//s:element[@name='TopupPurseFromAtmCard']//s:element/@name");
    BOOST_TEST((names == std::vector<std::string>{"sessionId", "purseDest", "cardId", "amount"}));
    const auto types = doc.values("//s:element[@name='TopupPurseFromAtmCard']//s:element/@type");
    BOOST_TEST((types == std::vector<std::string>{"s:string", "s:string", "s:long", "s:double"}));
    BOOST_TEST(
        doc.values("//s:element[@name='TopupPurseFromAtmCard']//s:element[@name='sessionId']/@minOccurs").at(0) == "0");
    BOOST_TEST(doc.values("//s:element[@name='TopupPurseFromAtmCard']//s:element[@name='cardId']/@minOccurs").at(0) ==
               "1");
    BOOST_TEST(doc.values("//soap:operation/@soapAction").size() == table_operations(api_group::account).size());
}

BOOST_AUTO_TEST_CASE(the_provider_enumeration_is_a_restricted_simple_type_in_order) {
    const xml_doc doc{write_wsdl(api_group::push, "http://tempuri.org/", "http://h/p")};
    const auto values =
        doc.values("//s:simpleType[@name='Provider']/s:restriction[@base='s:string']/s:enumeration/@value");
    BOOST_TEST_REQUIRE(values.size() == 16u);
    BOOST_TEST(values.front() == "Undefined");
    BOOST_TEST(values.back() == "WindowsUWP");
    const xml_doc other{write_wsdl(api_group::account, "http://tempuri.org/", "http://h/a")};
    BOOST_TEST(other.values("//s:simpleType").empty());  // only groups that use it declare it
}

BOOST_AUTO_TEST_CASE(http_result_elements_match_the_groups_result_types) {
    const xml_doc global{write_wsdl(api_group::global, "http://tempuri.org/", "http://h/g")};
    BOOST_TEST((as_set(global.values("/wsdl:definitions/wsdl:types/s:schema/s:element[@type]/@name")) ==
                std::set<std::string>{"dateTime"}));
    const xml_doc errors{write_wsdl(api_group::errors, "http://tempuri.org/", "http://h/e")};
    BOOST_TEST((as_set(errors.values("/wsdl:definitions/wsdl:types/s:schema/s:element[@type]/@name")) ==
                std::set<std::string>{"string"}));
}

BOOST_AUTO_TEST_CASE(a_namespace_without_trailing_slash_still_gets_one_slash_in_actions) {
    const xml_doc doc{write_wsdl(api_group::global, "urn:keeper", "http://h/g")};
    BOOST_TEST(doc.values("//soap:operation/@soapAction").at(0) == "urn:keeper/GetUtcNow");
}

BOOST_AUTO_TEST_CASE(pages_list_and_describe_every_operation) {
    for (auto g : all_groups()) {
        const auto page = group_page(g, "/" + std::string{group_name(g)} + ".asmx");
        for (const auto& name : table_operations(g)) BOOST_TEST(page.find("?op=" + name + "\"") != std::string::npos);
    }
    const auto* op = find_operation(api_group::push, "SubscribeWithTagAndLocale");
    const auto page = operation_page(*op, {"/PushApi.asmx", "h", "http://tempuri.org/"});
    BOOST_TEST(page.find("SOAPAction: &quot;http://tempuri.org/SubscribeWithTagAndLocale&quot;") != std::string::npos);
    BOOST_TEST(
        page.find("GET /PushApi.asmx/SubscribeWithTagAndLocale?sessionId=string&amp;provider=Undefined or Android") !=
        std::string::npos);
    BOOST_TEST(page.find("application/soap+xml; charset=utf-8") != std::string::npos);
    BOOST_TEST(page.find("&lt;tag&gt;int&lt;/tag&gt;") != std::string::npos);
    BOOST_TEST(page.find("POST /PushApi.asmx/SubscribeWithTagAndLocale HTTP/1.1\nHost: h\nContent-Type: "
                         "application/json; charset=utf-8") != std::string::npos);
    BOOST_TEST(page.find("{&quot;sessionId&quot;:&quot;string&quot;,&quot;provider&quot;:&quot;Undefined or Android") !=
               std::string::npos);
    BOOST_TEST(page.find("&quot;tag&quot;:int") != std::string::npos);
    for (const auto& row : transports())
        BOOST_TEST(page.find("<h2>" + std::string{row.title} + "</h2>") != std::string::npos);
    BOOST_TEST(page.find("<form") == std::string::npos);
    BOOST_TEST(page.find("only available for requests from the local machine") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(the_test_form_has_a_field_per_parameter_and_posts_to_the_operation) {
    const auto* op = find_operation(api_group::push, "SubscribeWithTagAndLocale");
    const auto page = operation_page(*op, {"/PushApi.asmx", "h", "http://tempuri.org/", true});
    BOOST_TEST(
        page.find(
            R"(<form id="test-form" action="/PushApi.asmx/SubscribeWithTagAndLocale" method="POST" target="test-result">)") !=
        std::string::npos);
    for (const auto& p : op->params) BOOST_TEST(page.find("name=\"" + std::string{p.name} + "\"") != std::string::npos);
    BOOST_TEST(page.find(R"(<iframe name="test-result")") != std::string::npos);
    const auto* now = find_operation(api_group::global, "GetUtcNow");
    const auto bare = operation_page(*now, {"/GlobalApi.asmx", "h", "http://tempuri.org/", true});
    BOOST_TEST(bare.find("<input type=\"text\"") == std::string::npos);
    BOOST_TEST(bare.find(R"(id="invoke")") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
