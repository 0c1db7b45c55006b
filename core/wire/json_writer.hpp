#pragma once
// JSON answers as ASP.NET AJAX script services write them (docs/api-decisions.md, JSON): the
// result wrapped as {"d":…}, dateTime as "\/Date(ms)\/"; a fault as {"Message":"…"} with the
// header `jsonerror: true`, 400 for the client's fault, 404 for an unknown operation, 500 for
// the server's. Never a stack trace or a type name.
#include <string>
#include <string_view>

#include "core/api/fault.hpp"
#include "core/api/http_message.hpp"
#include "core/api/operation.hpp"

namespace keeper::core {

inline constexpr std::string_view json_content_type = "application/json; charset=utf-8";

// A JSON string literal, quotes included, escaped as JavaScriptSerializer does: besides the
// escapes JSON requires, < > & ' become \u003c \u003e \u0026 \u0027 so the text is safe in HTML.
std::string json_string(std::string_view text);
// The JSON text of a result value: a number, a string, or "\/Date(ms)\/".
std::string json_value(const result_value& value);

http_response write_json_result(const operation& op, const result_value& value, std::string_view ns);
http_response write_json_fault(const fault& f);

}  // namespace keeper::core
