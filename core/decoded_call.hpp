#pragma once
// A request turned into a typed call: which operation, and its arguments in declaration order.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "operation.hpp"
#include "soap_version.hpp"

namespace keeper::core {

struct decoded_call {
    const operation* op = nullptr;
    std::vector<param_value> args;
};

// SOAP: routes by SOAPAction (1.1) or the action parameter (1.2), else by the body element, and
// reads the parameters by XML Schema rules. Throws fault.
decoded_call decode_soap_call(std::string_view body, soap_version version, const std::optional<std::string>& action,
                              api_group group, std::string_view ns);

// HTTP GET/POST: the operation is already known from the path. Throws fault(client) naming a
// missing, repeated or undecodable parameter.
decoded_call decode_form_call(const operation& op, std::string_view encoded_form);

// The SOAPAction of an operation: the namespace and the name joined by exactly one '/'.
std::string soap_action_for(std::string_view ns, std::string_view operation_name);

}  // namespace keeper::core
