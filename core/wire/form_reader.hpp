#pragma once
// application/x-www-form-urlencoded (a query string or a POST body) → name/value pairs.
#include <map>
#include <string>
#include <string_view>

namespace keeper::core {

// Names are case-sensitive; a name may occur more than once. Throws fault(client) for a broken
// percent escape.
std::multimap<std::string, std::string> read_form(std::string_view encoded);

}  // namespace keeper::core
