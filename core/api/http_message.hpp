#pragma once
// The request and response values that fcgi/ fills and sends; core/ never sees FastCGI.
#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace keeper::core {

struct http_request {
    std::string method{};                      // "GET", "POST", ...
    std::string path{};                        // URL path without the query, e.g. "/AccountApi.asmx"
    std::string query{};                       // raw query string, without '?'
    std::string content_type{};                // as sent, parameters included
    std::optional<std::string> soap_action{};  // the SOAPAction header, when present
    std::string host{};                        // Host header, for WSDL addresses
    std::string scheme = "http";               // what nginx forwarded
    std::string request_id{};                  // nginx's $request_id, or one the worker made
    std::string body{};
    bool body_too_large = false;                   // the front refused to read a body over the limit
    std::string remote_addr{};                     // the client's address as nginx saw it (REMOTE_ADDR)
    std::optional<std::string> idempotency_key{};  // the Idempotency-Key header as sent, when present
    std::optional<std::string>
        traceparent{};  // W3C Trace Context, as nginx passes it on (core/domain/trace_context.hpp)
    // nginx sent this request before, to a worker that died with it (it came on the retry socket):
    // a write first settles that attempt (docs/design.md, "In-doubt calls").
    bool retried = false;
    // When the worker read the request. None (a test's request): when it is handled.
    std::optional<std::chrono::steady_clock::time_point> arrived{};
    // When nginx (or the front before it) first saw the call: its request id's time. The call's
    // deadline is call_budget_ms after it, so a wait before a worker read the request (the front,
    // the socket's backlog, a busy thread) is spent from the call's budget. None (an id of
    // another shape, a test's request): from `arrived`.
    std::optional<std::chrono::system_clock::time_point> sent_at{};
    // The client's port as nginx saw it (REMOTE_PORT): with remote_addr, its connection, by which
    // the refuser knows a client that asks again before its Retry-After ran out.
    std::string remote_port{};
};

struct http_response {
    int status = 200;
    std::string content_type;
    std::vector<std::pair<std::string, std::string>> headers;
    std::string body;
};

}  // namespace keeper::core
