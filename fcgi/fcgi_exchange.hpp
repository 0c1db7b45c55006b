#pragma once
// Moves bytes between one FastCGI request and core's request/response values, and nothing else.
#include <fcgiapp.h>

#include <cstddef>

#include "core/api/http_message.hpp"

namespace keeper::fcgi {

// Reads parameters and at most body_limit bytes of body; a longer body is not read at all and
// the request is marked body_too_large.
core::http_request read_request(FCGX_Request& request, std::size_t body_limit);

void write_response(FCGX_Request& request, const core::http_response& response, const std::string& request_id);

}  // namespace keeper::fcgi
