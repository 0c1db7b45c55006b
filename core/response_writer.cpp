#include "response_writer.hpp"

#include "soap_version.hpp"
#include "text_util.hpp"

namespace keeper::core {
namespace {

constexpr std::string_view xml_declaration = R"(<?xml version="1.0" encoding="utf-8"?>)";
constexpr std::string_view soap11_content_type = "text/xml; charset=utf-8";
constexpr std::string_view soap12_content_type = "application/soap+xml; charset=utf-8";
constexpr std::string_view plain_content_type = "text/plain; charset=utf-8";

std::string envelope(soap_version v, std::string_view body_content) {
    std::string out{xml_declaration};
    out += R"(<soap:Envelope xmlns:soap=")";
    out += envelope_ns(v);
    out += R"(" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema"><soap:Body>)";
    out += body_content;
    out += "</soap:Body></soap:Envelope>";
    return out;
}

std::string_view fault_code(soap_version v, fault_kind kind) {
    const bool v11 = v == soap_version::v11;
    switch (kind) {
        case fault_kind::version_mismatch: return "soap:VersionMismatch";
        case fault_kind::must_understand: return "soap:MustUnderstand";
        case fault_kind::server: return v11 ? "soap:Server" : "soap:Receiver";
        default: return v11 ? "soap:Client" : "soap:Sender";
    }
}

std::string soap_fault_body(soap_version v, const fault& f) {
    const auto code = fault_code(v, f.kind());
    const auto reason = xml_escape_text(f.what());
    if (v == soap_version::v11) {
        return "<soap:Fault><faultcode>" + std::string{code} + "</faultcode><faultstring>" + reason +
               "</faultstring><detail /></soap:Fault>";
    }
    return "<soap:Fault><soap:Code><soap:Value>" + std::string{code} +
           R"(</soap:Value></soap:Code><soap:Reason><soap:Text xml:lang="en">)" + reason +
           "</soap:Text></soap:Reason><soap:Detail /></soap:Fault>";
}

// HTTP statuses of faults (docs/api-decisions.md, Errors) that do not depend on the transport.
int http_level_status(fault_kind kind) {
    switch (kind) {
        case fault_kind::no_such_endpoint: return 404;
        case fault_kind::method_not_allowed: return 405;
        case fault_kind::unsupported_media_type: return 415;
        case fault_kind::body_too_large: return 413;
        default: return 0;
    }
}

int form_status(fault_kind kind) {
    switch (kind) {
        case fault_kind::unknown_operation: return 404;
        case fault_kind::server: return 500;
        default: return 400;
    }
}

http_response plain(int status, std::string_view text) {
    return {status, std::string{plain_content_type}, {}, std::string{text} + "\r\n"};
}

}  // namespace

std::string_view result_type_name(result_type type) {
    switch (type) {
        case result_type::int32: return "int";
        case result_type::date_time: return "dateTime";
        case result_type::string: return "string";
    }
    return "string";
}

std::string result_text(const result_value& value) {
    if (const auto* code = std::get_if<result_code>(&value)) return std::to_string(static_cast<int>(*code));
    if (const auto* time = std::get_if<utc_time>(&value)) return format_date_time(*time);
    return xml_escape_text(std::get<std::string>(value));
}

http_response write_result(transport t, const operation& op, const result_value& value, std::string_view ns) {
    const auto text = result_text(value);
    const auto escaped_ns = xml_escape_attribute(ns);
    if (t == transport::soap11 || t == transport::soap12) {
        const std::string name{op.name};
        const auto body = "<" + name + R"(Response xmlns=")" + escaped_ns + R"("><)" + name + "Result>" + text +
                          "</" + name + "Result></" + name + "Response>";
        const auto v = t == transport::soap11 ? soap_version::v11 : soap_version::v12;
        return {200, std::string{v == soap_version::v11 ? soap11_content_type : soap12_content_type}, {}, envelope(v, body)};
    }
    // HTTP GET/POST: the bare result element, as XmlSerializer writes it (declaration, CRLF).
    const std::string type{result_type_name(op.result)};
    return {200, std::string{soap11_content_type}, {},
            std::string{xml_declaration} + "\r\n<" + type + R"( xmlns=")" + escaped_ns + R"(">)" + text + "</" + type + ">"};
}

http_response write_fault(transport t, const fault& f) {
    if (const int status = http_level_status(f.kind())) {
        auto r = plain(status, f.what());
        if (status == 405) r.headers.emplace_back("Allow", "GET, POST");
        return r;
    }
    if (t == transport::soap11 || t == transport::soap12) {
        const auto v = t == transport::soap11 ? soap_version::v11 : soap_version::v12;
        // Unreadable XML is 400 (ASMX sends it with an empty body; keeper says why in a fault).
        const int status = f.kind() == fault_kind::malformed ? 400 : 500;
        return {status, std::string{v == soap_version::v11 ? soap11_content_type : soap12_content_type}, {},
                envelope(v, soap_fault_body(v, f))};
    }
    return plain(form_status(f.kind()), f.what());
}

}  // namespace keeper::core
