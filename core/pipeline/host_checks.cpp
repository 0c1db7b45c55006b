#include "core/pipeline/host_checks.hpp"

#include <string>

#include "core/api/fault.hpp"

namespace keeper::core {
namespace {

constexpr std::string_view text_type = "text/plain; charset=utf-8";

http_response answer(request_log& log, bool up, std::string_view what, std::string body) {
    log.group = "health";
    log.outcome = std::string{what} + (up ? "=ok" : "=unavailable");
    return {up ? 200 : 503, std::string{text_type}, {}, std::move(body)};
}

// What /ready says when the database does not take writes: gone, or a standby.
std::string not_ready_reason(store& st) {
    return st.healthy() ? "not ready: the database takes no writes (a standby)\r\n"
                        : "not ready: database unreachable\r\n";
}

}  // namespace

bool is_host_check(std::string_view path) { return path == "/live" || path == "/ready" || path == "/health"; }

http_response answer_host_check(const http_request& req, store& st, request_log& log) {
    log.group = "health";
    if (req.method != "GET" && req.method != "HEAD") {
        throw fault(fault_kind::method_not_allowed, "Method " + req.method + " is not allowed; use GET or HEAD.");
    }
    if (req.path == "/live") return answer(log, true, "live", "live\r\n");
    if (req.path == "/ready") {
        const bool ready = st.takes_writes();
        return answer(log, ready, "ready", ready ? "ready\r\n" : not_ready_reason(st));
    }
    const bool up = st.healthy();
    return answer(log, up, "health", up ? "ok\r\n" : "database unreachable\r\n");
}

http_response refused_host_check(const http_request& req, std::string_view reason, request_log& log) {
    if (req.path == "/live") return answer(log, true, "live", "live\r\n");
    return answer(log, false, req.path == "/ready" ? "ready" : "health", "not ready: " + std::string{reason} + "\r\n");
}

}  // namespace keeper::core
