// SOAP 1.1 / 1.2 request → decoded_call.
#include "core/wire/call_decoders.hpp"
#include "core/api/fault.hpp"
#include "core/domain/operation_table.hpp"
#include "core/wire/soap_reader.hpp"
#include "core/wire/text_decoders.hpp"
#include "core/api/text_util.hpp"

namespace keeper::core {
namespace {

std::string strip_quotes(std::string_view s) {
    s = trim_xml_space(s);
    if (s.size() >= 2 && s.front() == '"' && s.back() == '"') s = s.substr(1, s.size() - 2);
    return std::string{s};
}

// The operation an action names, or nullptr.
const operation* operation_for_action(std::string_view action, api_group group, std::string_view ns) {
    for (const auto& op : operations()) {
        if (op.group == group && soap_action_for(ns, op.name) == action) return &op;
    }
    return nullptr;
}

std::string qualified(std::string_view ns, std::string_view name) {
    return ns.empty() ? std::string{name} : "{" + std::string{ns} + "}" + std::string{name};
}

const operation& operation_for_body(const soap_request& msg, api_group group, std::string_view ns) {
    const auto* op = msg.body_ns == ns ? find_operation(group, msg.body_name) : nullptr;
    if (!op) {
        throw fault(fault_kind::client, "Server did not recognize the value of the request element: " +
                                            qualified(msg.body_ns, msg.body_name) + ".");
    }
    return *op;
}

const soap_child* find_child(const soap_request& msg, std::string_view ns, std::string_view name) {
    for (const auto& c : msg.children) {
        if (c.ns == ns && c.name == name) return &c;
    }
    return nullptr;
}

param_value read_param(const soap_request& msg, const param_spec& p, std::string_view ns) {
    const auto* child = find_child(msg, ns, p.name);
    if (!child || child->nil) return default_value(p.type);
    auto value = decode_xsd(p.type, child->text);
    if (!value) {
        throw fault(fault_kind::client, "Parameter '" + std::string{p.name} + "' has an invalid value '" +
                                            shorten_for_message(child->text) + "': not a valid " +
                                            std::string{xsd_type_name(p.type)} + ".");
    }
    return std::move(*value);
}

}  // namespace

std::string soap_action_for(std::string_view ns, std::string_view operation_name) {
    std::string action{ns};
    if (action.empty() || action.back() != '/') action += '/';
    return action + std::string{operation_name};
}

decoded_call decode_soap_call(std::string_view body, soap_version version, const std::optional<std::string>& action,
                              api_group group, std::string_view ns) {
    const auto msg = read_soap(body, version);
    const operation* routed = nullptr;
    const auto wanted = action ? strip_quotes(*action) : std::string{};
    if (!wanted.empty()) {
        routed = operation_for_action(wanted, group, ns);
        // SOAP 1.1 is routed by SOAPAction alone; an unknown one is the client's fault. SOAP 1.2's
        // action parameter is only a hint: unknown, it falls back to the body.
        if (!routed && version == soap_version::v11) {
            throw fault(fault_kind::client, "Server did not recognize the value of HTTP Header SOAPAction: " +
                                                shorten_for_message(wanted, 200) + ".");
        }
    }
    const auto& by_body = operation_for_body(msg, group, ns);
    if (routed && routed != &by_body) {
        throw fault(fault_kind::client, "The SOAP action names " + std::string{routed->name} +
                                            " but the body element is " + std::string{by_body.name} + ".");
    }
    decoded_call call{&by_body, {}};
    for (const auto& p : by_body.params) call.args.push_back(read_param(msg, p, ns));
    return call;
}

}  // namespace keeper::core
