#include "core/pages/wsdl_writer.hpp"

#include "core/wire/call_decoders.hpp"
#include "core/domain/operation_table.hpp"
#include "core/api/provider.hpp"
#include "core/wire/result_text.hpp"
#include "core/wire/xml_writer.hpp"

namespace keeper::core {
namespace {

constexpr std::string_view wsdl_ns = "http://schemas.xmlsoap.org/wsdl/";
constexpr std::string_view http_transport = "http://schemas.xmlsoap.org/soap/http";

std::vector<const operation*> group_operations(api_group group) {
    std::vector<const operation*> out;
    for (const auto& op : operations()) {
        if (op.group == group) out.push_back(&op);
    }
    return out;
}

bool uses_provider(const std::vector<const operation*>& ops) {
    for (const auto* op : ops) {
        for (const auto& p : op->params) {
            if (p.type == param_type::provider) return true;
        }
    }
    return false;
}

bool uses_result(const std::vector<const operation*>& ops, result_type t) {
    for (const auto* op : ops) {
        if (op->result == t) return true;
    }
    return false;
}

std::string schema_type(param_type t) {
    return t == param_type::provider ? "tns:Provider" : "s:" + std::string{xsd_type_name(t)};
}

// XmlSerializer: reference types (string) may be absent, value types must be present.
std::string_view min_occurs(param_type t) { return t == param_type::string ? "0" : "1"; }
std::string_view min_occurs(result_type t) { return t == result_type::string ? "0" : "1"; }

void write_wrapper_elements(xml_writer& w, const operation& op) {
    const std::string name{op.name};
    w.open("s:element", {{"name", name}});
    if (op.params.empty()) {
        w.empty("s:complexType");
    } else {
        w.open("s:complexType").open("s:sequence");
        for (const auto& p : op.params) {
            w.empty("s:element", {{"minOccurs", min_occurs(p.type)},
                                  {"maxOccurs", "1"},
                                  {"name", p.name},
                                  {"type", schema_type(p.type)}});
        }
        w.close().close();
    }
    w.close();
    const std::string result_name = name + "Result";
    const std::string result_type_ref = "s:" + std::string{result_type_name(op.result)};
    w.open("s:element", {{"name", name + "Response"}}).open("s:complexType").open("s:sequence");
    w.empty(
        "s:element",
        {{"minOccurs", min_occurs(op.result)}, {"maxOccurs", "1"}, {"name", result_name}, {"type", result_type_ref}});
    w.close().close().close();
}

void write_types(xml_writer& w, const std::vector<const operation*>& ops, std::string_view ns) {
    w.open("wsdl:types").open("s:schema", {{"elementFormDefault", "qualified"}, {"targetNamespace", ns}});
    for (const auto* op : ops) write_wrapper_elements(w, *op);
    if (uses_provider(ops)) {
        w.open("s:simpleType", {{"name", "Provider"}}).open("s:restriction", {{"base", "s:string"}});
        for (const auto name : provider_names()) w.empty("s:enumeration", {{"value", name}});
        w.close().close();
    }
    if (uses_result(ops, result_type::int32)) w.empty("s:element", {{"name", "int"}, {"type", "s:int"}});
    if (uses_result(ops, result_type::string))
        w.empty("s:element", {{"name", "string"}, {"nillable", "true"}, {"type", "s:string"}});
    if (uses_result(ops, result_type::date_time)) w.empty("s:element", {{"name", "dateTime"}, {"type", "s:dateTime"}});
    w.close().close();
}

void write_messages(xml_writer& w, const std::vector<const operation*>& ops) {
    for (const auto* op : ops) {
        const std::string name{op->name};
        w.open("wsdl:message", {{"name", name + "SoapIn"}})
            .empty("wsdl:part", {{"name", "parameters"}, {"element", "tns:" + name}})
            .close();
        w.open("wsdl:message", {{"name", name + "SoapOut"}})
            .empty("wsdl:part", {{"name", "parameters"}, {"element", "tns:" + name + "Response"}})
            .close();
        // HttpGet/HttpPost parts are all s:string, as ASMX writes them: they are URL-encoded text.
        for (const std::string verb : {"HttpGet", "HttpPost"}) {
            w.open("wsdl:message", {{"name", name + verb + "In"}});
            for (const auto& p : op->params) w.empty("wsdl:part", {{"name", p.name}, {"type", "s:string"}});
            w.close();
            w.open("wsdl:message", {{"name", name + verb + "Out"}})
                .empty("wsdl:part", {{"name", "Body"}, {"element", "tns:" + std::string{result_type_name(op->result)}}})
                .close();
        }
    }
}

void write_port_type(xml_writer& w, const std::vector<const operation*>& ops, const std::string& service,
                     const std::string& suffix, const std::string& message_suffix) {
    w.open("wsdl:portType", {{"name", service + suffix}});
    for (const auto* op : ops) {
        const std::string name{op->name};
        w.open("wsdl:operation", {{"name", name}});
        w.text_element("wsdl:documentation", op->summary, {{"xmlns:wsdl", wsdl_ns}});
        w.empty("wsdl:input", {{"message", "tns:" + name + message_suffix + "In"}});
        w.empty("wsdl:output", {{"message", "tns:" + name + message_suffix + "Out"}});
        w.close();
    }
    w.close();
}

void write_soap_binding(xml_writer& w, const std::vector<const operation*>& ops, const std::string& service,
                        std::string_view prefix, std::string_view ns) {
    const std::string p{prefix};
    const std::string suffix = prefix == "soap" ? "Soap" : "Soap12";
    w.open("wsdl:binding", {{"name", service + suffix}, {"type", "tns:" + service + "Soap"}});
    w.empty(p + ":binding", {{"transport", http_transport}});
    for (const auto* op : ops) {
        w.open("wsdl:operation", {{"name", op->name}});
        w.empty(p + ":operation", {{"soapAction", soap_action_for(ns, op->name)}, {"style", "document"}});
        w.open("wsdl:input").empty(p + ":body", {{"use", "literal"}}).close();
        w.open("wsdl:output").empty(p + ":body", {{"use", "literal"}}).close();
        w.close();
    }
    w.close();
}

void write_http_binding(xml_writer& w, const std::vector<const operation*>& ops, const std::string& service, bool get) {
    const std::string suffix = get ? "HttpGet" : "HttpPost";
    w.open("wsdl:binding", {{"name", service + suffix}, {"type", "tns:" + service + suffix}});
    w.empty("http:binding", {{"verb", get ? "GET" : "POST"}});
    for (const auto* op : ops) {
        w.open("wsdl:operation", {{"name", op->name}});
        w.empty("http:operation", {{"location", "/" + std::string{op->name}}});
        w.open("wsdl:input");
        if (get) w.empty("http:urlEncoded");
        else w.empty("mime:content", {{"type", "application/x-www-form-urlencoded"}});
        w.close();
        w.open("wsdl:output").empty("mime:mimeXml", {{"part", "Body"}}).close();
        w.close();
    }
    w.close();
}

void write_service(xml_writer& w, const std::string& service, std::string_view base_url) {
    w.open("wsdl:service", {{"name", service}});
    const std::pair<std::string, std::string> ports[] = {{"Soap", "soap:address"},
                                                         {"Soap12", "soap12:address"},
                                                         {"HttpGet", "http:address"},
                                                         {"HttpPost", "http:address"}};
    for (const auto& [suffix, address] : ports) {
        w.open("wsdl:port", {{"name", service + suffix}, {"binding", "tns:" + service + suffix}});
        w.empty(address, {{"location", base_url}});
        w.close();
    }
    w.close();
}

}  // namespace

std::string write_wsdl(api_group group, std::string_view ns, std::string_view base_url) {
    const auto ops = group_operations(group);
    const std::string service{group_name(group)};
    xml_writer w;
    w.open("wsdl:definitions", {{"xmlns:soap", "http://schemas.xmlsoap.org/wsdl/soap/"},
                                {"xmlns:tm", "http://microsoft.com/wsdl/mime/textMatching/"},
                                {"xmlns:soapenc", "http://schemas.xmlsoap.org/soap/encoding/"},
                                {"xmlns:mime", "http://schemas.xmlsoap.org/wsdl/mime/"},
                                {"xmlns:tns", ns},
                                {"xmlns:s", "http://www.w3.org/2001/XMLSchema"},
                                {"xmlns:soap12", "http://schemas.xmlsoap.org/wsdl/soap12/"},
                                {"xmlns:http", "http://schemas.xmlsoap.org/wsdl/http/"},
                                {"targetNamespace", ns},
                                {"xmlns:wsdl", wsdl_ns}});
    write_types(w, ops, ns);
    write_messages(w, ops);
    write_port_type(w, ops, service, "Soap", "Soap");
    write_port_type(w, ops, service, "HttpGet", "HttpGet");
    write_port_type(w, ops, service, "HttpPost", "HttpPost");
    write_soap_binding(w, ops, service, "soap", ns);
    write_soap_binding(w, ops, service, "soap12", ns);
    write_http_binding(w, ops, service, true);
    write_http_binding(w, ops, service, false);
    write_service(w, service, base_url);
    return w.finish();
}

std::string write_disco(api_group group, std::string_view ns, std::string_view base_url) {
    const std::string service{group_name(group)};
    const std::string url{base_url};
    xml_writer w;
    w.open("discovery", {{"xmlns:xsd", "http://www.w3.org/2001/XMLSchema"},
                         {"xmlns:xsi", "http://www.w3.org/2001/XMLSchema-instance"},
                         {"xmlns", "http://schemas.xmlsoap.org/disco/"}});
    w.empty("contractRef",
            {{"ref", url + "?wsdl"}, {"docRef", url}, {"xmlns", "http://schemas.xmlsoap.org/disco/scl/"}});
    w.empty("soap", {{"address", url},
                     {"xmlns:q1", ns},
                     {"binding", "q1:" + service + "Soap"},
                     {"xmlns", "http://schemas.xmlsoap.org/disco/soap/"}});
    w.empty("soap", {{"address", url},
                     {"xmlns:q2", ns},
                     {"binding", "q2:" + service + "Soap12"},
                     {"xmlns", "http://schemas.xmlsoap.org/disco/soap/"}});
    return w.finish();
}

}  // namespace keeper::core
