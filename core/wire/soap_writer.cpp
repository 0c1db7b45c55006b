#include "core/wire/soap_writer.hpp"

#include "core/api/text_util.hpp"
#include "core/wire/result_text.hpp"

namespace keeper::core {
namespace {

std::string envelope(soap_version v, std::string_view body_content) {
    constexpr std::string_view open_tag = R"(<soap:Envelope xmlns:soap=")";
    constexpr std::string_view namespaces =
        R"(" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema"><soap:Body>)";
    constexpr std::string_view close_tags = "</soap:Body></soap:Envelope>";
    const auto ns = envelope_ns(v);
    std::string out;  // sized once: every answer is built here, and each growth is a copy
    out.reserve(xml_declaration.size() + open_tag.size() + ns.size() + namespaces.size() + body_content.size() +
                close_tags.size());
    out.append(xml_declaration).append(open_tag).append(ns).append(namespaces).append(body_content).append(close_tags);
    return out;
}

std::string_view fault_code(soap_version v, fault_kind kind) {
    const bool v11 = v == soap_version::v11;
    switch (kind) {
        case fault_kind::version_mismatch:
            return "soap:VersionMismatch";
        case fault_kind::must_understand:
            return "soap:MustUnderstand";
        case fault_kind::server:
        case fault_kind::key_in_flight:
        case fault_kind::not_applied:
            return v11 ? "soap:Server" : "soap:Receiver";  // the client did nothing wrong
        default:
            return v11 ? "soap:Client" : "soap:Sender";
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

}  // namespace

std::string_view soap_content_type(soap_version v) {
    return v == soap_version::v11 ? "text/xml; charset=utf-8" : "application/soap+xml; charset=utf-8";
}

http_response write_soap_result(soap_version v, const operation& op, const result_value& value, std::string_view ns) {
    const std::string_view name = op.name;
    const auto text = result_text(value);
    std::string body;
    constexpr std::size_t tags = 47;  // the literal characters appended below
    body.reserve(4 * name.size() + ns.size() + text.size() + tags);
    body.append("<").append(name).append(R"(Response xmlns=")").append(xml_escape_attribute(ns)).append(R"("><)");
    body.append(name).append("Result>").append(text).append("</").append(name).append("Result></");
    body.append(name).append("Response>");
    return {200, std::string{soap_content_type(v)}, {}, envelope(v, body)};
}

http_response write_soap_fault(soap_version v, const fault& f) {
    const int status = f.kind() == fault_kind::malformed ? 400 : 500;
    return {status, std::string{soap_content_type(v)}, {}, envelope(v, soap_fault_body(v, f))};
}

}  // namespace keeper::core
