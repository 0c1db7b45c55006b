#pragma once
// The transports' decoders: request bytes → decoded_call. Each throws fault naming what was wrong.
#include <optional>
#include <string>
#include <string_view>

#include "core/api/decoded_call.hpp"
#include "core/wire/soap_version.hpp"

namespace keeper::core {

// SOAP: routes by SOAPAction (1.1) or the action parameter (1.2), else by the body element, and
// reads the parameters by XML Schema rules.
decoded_call decode_soap_call(std::string_view body, soap_version version, const std::optional<std::string>& action,
                              api_group group, std::string_view ns);

// HTTP GET/POST: the operation is already known from the path. Throws fault(client) naming a
// missing, repeated or undecodable parameter.
decoded_call decode_form_call(const operation& op, std::string_view encoded_form);

// JSON (ASP.NET AJAX): the operation is known from the path; the body is an object of the
// parameters by name. Throws fault(malformed) for a body that is not JSON, fault(client) naming
// a missing, repeated or mistyped parameter.
decoded_call decode_json_call(const operation& op, std::string_view body);

// The SOAPAction of an operation: the namespace and the name joined by exactly one '/'.
std::string soap_action_for(std::string_view ns, std::string_view operation_name);

}  // namespace keeper::core
