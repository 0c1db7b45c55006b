#pragma once
// W3C Trace Context's traceparent header (https://www.w3.org/TR/trace-context/), version 00:
// "00-<trace id: 32 hex>-<parent id: 16 hex>-<flags: 2 hex>", lower case, neither id all zeros.
// nginx continues or starts the trace (nginx/keeper-request-id.conf) and passes it on; the worker
// records its trace id in the call's log line (docs/api-decisions.md, "Trace context").
#include <optional>
#include <string>
#include <string_view>

#include "core/api/http_message.hpp"

namespace keeper::core {

// The trace id of a valid traceparent; nullopt for anything else (no header, another version, a
// malformed or all-zero id), which belongs to no trace keeper can name.
std::optional<std::string> trace_id_of(std::string_view traceparent);
// The trace id of the request's traceparent, "" when it has none (or none valid).
std::string request_trace_id(const http_request& req);

}  // namespace keeper::core
