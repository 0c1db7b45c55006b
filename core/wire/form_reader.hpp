#pragma once
// application/x-www-form-urlencoded (a query string or a POST body) → name/value pairs.
#include <map>
#include <string>
#include <string_view>

namespace keeper::core {

// Names are case-sensitive; a name may occur more than once. Throws fault(client) for a broken
// percent escape.
std::multimap<std::string, std::string> read_form(std::string_view encoded);

// The one value of `name`. Throws fault(client) when it is missing or given more than once (ASMX
// would join repeats with ','; a payment API refuses the ambiguity, docs/api-decisions.md).
const std::string& one_form_value(const std::multimap<std::string, std::string>& form, const std::string& name);

}  // namespace keeper::core
