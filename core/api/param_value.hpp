#pragma once
// The wire types an operation parameter can have, and the decoded value of one.
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

#include "core/api/provider.hpp"

namespace keeper::core {

// The order matches param_value's alternatives, and xsd_type_names (param_value.cpp) names each.
enum class param_type { string, boolean, int32, int64, float64, provider };

using param_value = std::variant<std::string, bool, std::int32_t, std::int64_t, double, provider>;

// The XML Schema type name of a parameter type, as WSDL writes it (`s:` prefix not included).
std::string_view xsd_type_name(param_type t);

// What a missing SOAP element or xsi:nil decodes to (docs/api-decisions.md, SOAP routing and
// decoding): null string, 0, false, first enumeration value.
param_value default_value(param_type t);

}  // namespace keeper::core
