#include "samples.hpp"

#include "provider.hpp"
#include "response_writer.hpp"

namespace keeper::core {

std::string sample_placeholder(param_type t) {
    if (t != param_type::provider) return std::string{xsd_type_name(t)};
    std::string out;
    for (const auto name : provider_names()) out += (out.empty() ? "" : " or ") + std::string{name};
    return out;
}

std::string sample_soap_envelope(const operation& op, std::string_view ns, soap_version v, bool response) {
    const std::string name{op.name};
    const std::string element = name + (response ? "Response" : "");
    std::string body = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<soap:Envelope xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" "
                       "xmlns:xsd=\"http://www.w3.org/2001/XMLSchema\" xmlns:soap=\"" + std::string{envelope_ns(v)} +
                       "\">\n  <soap:Body>\n    <" + element + " xmlns=\"" + std::string{ns} + "\">\n";
    if (response) {
        body += "      <" + name + "Result>" + std::string{result_type_name(op.result)} + "</" + name + "Result>\n";
    } else {
        for (const auto& p : op.params) {
            body += "      <" + std::string{p.name} + ">" + sample_placeholder(p.type) + "</" + std::string{p.name} + ">\n";
        }
    }
    return body + "    </" + element + ">\n  </soap:Body>\n</soap:Envelope>";
}

std::string sample_form(const operation& op) {
    std::string out;
    for (const auto& p : op.params) out += (out.empty() ? "" : "&") + std::string{p.name} + "=" + sample_placeholder(p.type);
    return out;
}

std::string sample_plain_response(const operation& op, std::string_view ns) {
    const std::string type{result_type_name(op.result)};
    return "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<" + type + " xmlns=\"" + std::string{ns} + "\">" + type + "</" + type + ">";
}

}  // namespace keeper::core
