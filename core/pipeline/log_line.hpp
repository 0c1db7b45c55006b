#pragma once
// keeper's log lines (docs/operations.md, "Logs"): one a request, and the pool's own events, as
// logfmt or as one JSON object a line (the log_format setting), with the same fields either way.
// Values are sanitised so a client cannot forge lines. Holds no secret, hash or code: the
// request's arguments are never part of it.
#include <chrono>
#include <string>
#include <string_view>

#include "core/api/settings.hpp"
#include "core/pipeline/request_log.hpp"

namespace keeper::core {

std::string format_log_line(const std::string& request_id, const handled_request& handled,
                            std::chrono::microseconds took, log_format_kind format = log_format_kind::text);

// An event of the pool (source "pool", "keeper-fcgi", "worker"): "source: message" as text, or
// {"source":…,"message":…}.
std::string format_event(std::string_view source, std::string_view message,
                         log_format_kind format = log_format_kind::text);

}  // namespace keeper::core
