#include "core/wire/samples.hpp"

#include "core/api/provider.hpp"
#include "core/wire/call_decoders.hpp"
#include "core/wire/json_writer.hpp"
#include "core/wire/result_text.hpp"
#include "core/wire/soap_writer.hpp"

namespace keeper::core {
namespace {

std::string soap_envelope(const operation& op, std::string_view ns, soap_version v, bool response) {
    const std::string name{op.name};
    const std::string element = name + (response ? "Response" : "");
    std::string body =
        "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<soap:Envelope "
        "xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" "
        "xmlns:xsd=\"http://www.w3.org/2001/XMLSchema\" xmlns:soap=\"" +
        std::string{envelope_ns(v)} + "\">\n  <soap:Body>\n    <" + element + " xmlns=\"" + std::string{ns} + "\">\n";
    if (response) {
        body += "      <" + name + "Result>" + std::string{result_type_name(op.result)} + "</" + name + "Result>\n";
    } else {
        for (const auto& p : op.params) {
            body +=
                "      <" + std::string{p.name} + ">" + sample_placeholder(p.type) + "</" + std::string{p.name} + ">\n";
        }
    }
    return body + "    </" + element + ">\n  </soap:Body>\n</soap:Envelope>";
}

std::string sample_form(const operation& op) {
    std::string out;
    for (const auto& p : op.params)
        out += (out.empty() ? "" : "&") + std::string{p.name} + "=" + sample_placeholder(p.type);
    return out;
}

std::string plain_response(const operation& op, std::string_view ns) {
    const std::string type{result_type_name(op.result)};
    return "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<" + type + " xmlns=\"" + std::string{ns} + "\">" + type +
           "</" + type + ">";
}

// A JSON placeholder: strings and the enumeration quoted, numbers and booleans bare.
std::string json_placeholder(param_type t) {
    const auto text = sample_placeholder(t);
    return t == param_type::string || t == param_type::provider ? "\"" + text + "\"" : text;
}

std::string operation_path(const operation& op, std::string_view group_path) {
    return std::string{group_path} + "/" + std::string{op.name};
}

}  // namespace

std::string sample_placeholder(param_type t) {
    if (t != param_type::provider) return std::string{xsd_type_name(t)};
    std::string out;
    for (const auto name : provider_names()) out += (out.empty() ? "" : " or ") + std::string{name};
    return out;
}

sample_exchange sample_soap11(const operation& op, std::string_view group_path, std::string_view ns) {
    return {"POST " + std::string{group_path},
            {"Content-Type: text/xml; charset=utf-8", "Content-Length: length",
             "SOAPAction: \"" + soap_action_for(ns, op.name) + "\""},
            soap_envelope(op, ns, soap_version::v11, false),
            std::string{soap_content_type(soap_version::v11)},
            soap_envelope(op, ns, soap_version::v11, true)};
}

sample_exchange sample_soap12(const operation& op, std::string_view group_path, std::string_view ns) {
    return {"POST " + std::string{group_path},
            {"Content-Type: application/soap+xml; charset=utf-8", "Content-Length: length"},
            soap_envelope(op, ns, soap_version::v12, false),
            std::string{soap_content_type(soap_version::v12)},
            soap_envelope(op, ns, soap_version::v12, true)};
}

sample_exchange sample_http_get(const operation& op, std::string_view group_path, std::string_view ns) {
    const auto query = sample_form(op);
    return {"GET " + operation_path(op, group_path) + (query.empty() ? "" : "?" + query),
            {},
            {},
            "text/xml; charset=utf-8",
            plain_response(op, ns)};
}

sample_exchange sample_http_post(const operation& op, std::string_view group_path, std::string_view ns) {
    return {"POST " + operation_path(op, group_path),
            {"Content-Type: application/x-www-form-urlencoded", "Content-Length: length"},
            sample_form(op),
            "text/xml; charset=utf-8",
            plain_response(op, ns)};
}

sample_exchange sample_json(const operation& op, std::string_view group_path, std::string_view) {
    std::string body = "{";
    for (const auto& p : op.params)
        body += (body.size() > 1 ? "," : "") + json_string(p.name) + ":" + json_placeholder(p.type);
    body += "}";
    const auto result = op.result == result_type::date_time ? std::string{R"("\/Date(ms)\/")"}
                        : op.result == result_type::string  ? std::string{"\"string\""}
                                                            : std::string{result_type_name(op.result)};
    return {"POST " + operation_path(op, group_path),
            {"Content-Type: application/json; charset=utf-8", "Content-Length: length"},
            body,
            std::string{json_content_type},
            R"({"d":)" + result + "}"};
}

}  // namespace keeper::core
