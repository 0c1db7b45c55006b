#pragma once
// Moves bytes between one FastCGI request and core's request/response values, and nothing else.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "core/api/http_message.hpp"
#include "core/pipeline/request_log.hpp"

namespace keeper::fcgi {

// One request on a connection the caller holds: read, answered by `respond`, and written (one read
// and one write for a small request), so the answer is on its way before the caller's bookkeeping.
// The caller closes fd unless `open`: nothing here closes it.
struct exchange {
    std::optional<core::handled_request> answered;  // none: closed before a request came, or nginx went away
    std::string request_id;
    std::string aborted;  // what broke the FastCGI stream, if it broke
    bool open = false;    // nginx keeps the connection for another request, and nothing of it is unread
};
using responder = std::function<core::handled_request(const core::http_request&)>;
exchange exchange_one(int fd, std::size_t body_limit, bool retried, const responder& respond);

// exchange_one in two halves, for an answer written later (a held refusal, pool/worker.cpp): the
// request read (none: closed before a request came, or the stream broke, said in `out`), then
// its answer written.
struct begun_exchange {
    exchange out;
    std::optional<core::http_request> request;
    std::uint16_t fastcgi_id = 0;  // the FastCGI request the answer's records name
    bool keep = false;             // the connection can carry another request
};
begun_exchange begin_exchange(int fd, std::size_t body_limit, bool retried);
exchange finish_exchange(int fd, begun_exchange begun, core::handled_request answered);

}  // namespace keeper::fcgi
