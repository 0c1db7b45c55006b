#pragma once
// Results and faults → response bytes, for every transport. The only place that decides what a
// fault looks like on the wire and which HTTP status it gets.
#include <string_view>

#include "fault.hpp"
#include "http_message.hpp"
#include "operation.hpp"
#include "transport.hpp"

namespace keeper::core {

// The text of a result as it appears inside the XML element.
std::string result_text(const result_value& value);
// The XML Schema type name of a result ("int", "dateTime", "string").
std::string_view result_type_name(result_type type);

http_response write_result(transport t, const operation& op, const result_value& value, std::string_view ns);
http_response write_fault(transport t, const fault& f);

}  // namespace keeper::core
