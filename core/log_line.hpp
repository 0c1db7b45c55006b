#pragma once
// The one log line per request (docs/operations.md): logfmt, values sanitised so a client cannot
// forge lines. Holds no secret, hash or code: the request's arguments are never part of it.
#include <chrono>
#include <string>

#include "core/request_log.hpp"

namespace keeper::core {

std::string format_log_line(const std::string& request_id, const handled_request& handled, std::chrono::microseconds took);

}  // namespace keeper::core
