#pragma once
// Sample requests and responses of an operation with ASMX's placeholders ("string", "int",
// "Undefined or Android or ..."), for the help pages and the generated API reference.
#include <string>
#include <string_view>

#include "operation.hpp"
#include "soap_version.hpp"

namespace keeper::core {

std::string sample_placeholder(param_type t);
std::string sample_soap_envelope(const operation& op, std::string_view ns, soap_version v, bool response);
std::string sample_form(const operation& op);  // name=placeholder&...
std::string sample_plain_response(const operation& op, std::string_view ns);

}  // namespace keeper::core
