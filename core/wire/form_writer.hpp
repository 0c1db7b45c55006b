#pragma once
// HTTP GET and POST answers: the bare result element as XmlSerializer writes it, and faults as
// one text/plain line (400 for the client's, 404 for an unknown operation, 500 for the server's).
#include <string_view>

#include "core/api/fault.hpp"
#include "core/api/http_message.hpp"
#include "core/api/operation.hpp"

namespace keeper::core {

http_response write_form_result(const operation& op, const result_value& value, std::string_view ns);
http_response write_form_fault(const fault& f);
// A fault as one text/plain line with this status: also what requests refused before any
// transport was known get (docs/api-decisions.md, Errors).
http_response write_plain_fault(int status, const fault& f);

}  // namespace keeper::core
