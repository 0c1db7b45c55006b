#pragma once
// Text → typed value, by the two rule sets of the transports (docs/api-decisions.md: SOAP, and
// GET/POST). Both are pure and never throw: std::nullopt means "does not decode to this type",
// and the caller names the parameter.
#include <optional>
#include <string_view>

#include "core/api/param_value.hpp"

namespace keeper::core {

// SOAP element text, by XML Schema rules: boolean `true false 1 0`; int/long with optional sign
// and surrounding white space (overflow is an error); double also `NaN INF -INF`; the enum by
// exact name; strings as they are.
std::optional<param_value> decode_xsd(param_type type, std::string_view text);

// HTTP GET/POST values, by .NET invariant-culture rules: booleans `true`/`false` in any letter
// case and `1`/`0`; numbers without thousands separators; the enum by exact name.
std::optional<param_value> decode_form(param_type type, std::string_view text);

}  // namespace keeper::core
