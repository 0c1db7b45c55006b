#pragma once
// Results and faults → response bytes, for every transport: each row of the transport table
// writes its own (soap_writer, form_writer, json_writer); this is where a fault that does not
// depend on the transport (404, 405, 413, 415) is decided, before any row is asked.
#include <string_view>

#include "core/api/fault.hpp"
#include "core/api/http_message.hpp"
#include "core/api/operation.hpp"
#include "core/api/transport.hpp"

namespace keeper::core {

http_response write_result(transport t, const operation& op, const result_value& value, std::string_view ns);
http_response write_fault(transport t, const fault& f);

}  // namespace keeper::core
