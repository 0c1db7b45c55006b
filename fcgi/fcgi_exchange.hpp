#pragma once
// Moves bytes between one FastCGI request and core's request/response values, and nothing else.
#include <fcgiapp.h>

#include <cstddef>
#include <functional>
#include <optional>
#include <string>

#include "core/api/http_message.hpp"
#include "core/pipeline/request_log.hpp"

namespace keeper::fcgi {

// Reads parameters and at most body_limit bytes of body; a longer body is not read at all and
// the request is marked body_too_large.
core::http_request read_request(FCGX_Request& request, std::size_t body_limit);

void write_response(FCGX_Request& request, const core::http_response& response, const std::string& request_id);

// One request on a connection the caller holds: read, answered by `respond`, written and finished,
// so the answer is on its way before the caller's bookkeeping. libfcgi reads fd itself and keeps it
// open, unless nginx closed it or the stream broke: then libfcgi has closed it, plainly (detached:
// its own close would select() on the descriptor, past FD_SETSIZE in a worker holding many
// connections), and says so in `closed`. A duplicate for libfcgi would cost every request two
// system calls (bench/history.md, "The worker's system calls").
struct exchange {
    std::optional<core::handled_request> answered;  // none: closed before a request came, or nginx went away
    std::string request_id;
    std::string aborted;  // what broke the FastCGI stream mid-answer, if it broke
    bool open = false;    // nginx asked to keep the connection for another request
    bool closed = false;  // libfcgi closed fd: the caller forgets it, and must not close it
};
using responder = std::function<core::handled_request(const core::http_request&)>;
exchange exchange_one(FCGX_Request& request, int fd, std::size_t body_limit, bool retried, const responder& respond);

// exchange_one in two halves, for an answer written later (a held refusal, fcgi/worker.cpp): the
// request read (none: closed before a request came, or the stream broke, said in `out`), then
// its answer written and the request finished on the same FCGX_Request.
struct begun_exchange {
    exchange out;
    std::optional<core::http_request> request;
    bool keep = false;  // nginx asked to keep the connection
};
begun_exchange begin_exchange(FCGX_Request& request, int fd, std::size_t body_limit, bool retried);
exchange finish_exchange(FCGX_Request& request, begun_exchange begun, core::handled_request answered);

}  // namespace keeper::fcgi
