#include "fcgi_exchange.hpp"

#include <unistd.h>

#include <array>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

#include "core/api/date_time.hpp"
#include "core/api/http_status.hpp"
#include "core/api/request_id.hpp"

namespace keeper::fcgi {
namespace {

// The FastCGI parameters a request is read from, each found in one pass over the request's list:
// FCGX_GetParam walks the whole list with strncmp for each name: for 16 names over nginx's 30-odd
// parameters, a twentieth of a worker's CPU on a GetUtcNow (bench/history.md, "The
// fixed costs of every call").
enum class param : std::size_t {
    request_method,
    document_uri,
    script_name,
    path_info,
    query_string,
    content_type,
    content_length,
    soap_action,
    idempotency_key,
    traceparent,
    host,
    request_scheme,
    https,
    remote_addr,
    remote_port,
    request_id,
    count
};
constexpr std::array<std::string_view, static_cast<std::size_t>(param::count)> names{
    "REQUEST_METHOD", "DOCUMENT_URI",    "SCRIPT_NAME",          "PATH_INFO",        "QUERY_STRING", "CONTENT_TYPE",
    "CONTENT_LENGTH", "HTTP_SOAPACTION", "HTTP_IDEMPOTENCY_KEY", "HTTP_TRACEPARENT", "HTTP_HOST",    "REQUEST_SCHEME",
    "HTTPS",          "REMOTE_ADDR",     "REMOTE_PORT",          "REQUEST_ID",
};

class params {
public:
    explicit params(const FCGX_Request& r) {
        for (char** entry = r.envp; entry != nullptr && *entry != nullptr; ++entry) {
            const std::string_view text{*entry};
            const auto equals = text.find('=');
            if (equals == std::string_view::npos) continue;
            const auto key = text.substr(0, equals);
            for (std::size_t i = 0; i < names.size(); ++i) {
                if (key != names[i]) continue;
                if (!m_values[i]) m_values[i] = text.substr(equals + 1);  // the first, as FCGX_GetParam
                break;
            }
        }
    }
    std::string text(param n) const { return std::string{m_values[static_cast<std::size_t>(n)].value_or("")}; }
    std::optional<std::string> optional(param n) const {
        const auto& v = m_values[static_cast<std::size_t>(n)];
        return v ? std::optional<std::string>{*v} : std::nullopt;
    }

private:
    std::array<std::optional<std::string_view>, names.size()> m_values{};
};

// nginx passes $keeper_request_id (nginx/keeper-request-id.conf); without it (another peer, a
// test) make one of the same shape: the time in milliseconds (13 digits), then 19 hex digits
// that are unique to this worker and call (pid and a counter), so ids sort by time as nginx's do.
std::string make_request_id() {
    static std::atomic<unsigned long long> counter = 0;
    const auto ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch());
    char buf[40];
    std::snprintf(buf, sizeof buf, "%013lld%06x%013llx", static_cast<long long>(ms.count()),
                  static_cast<unsigned>(getpid()) & 0xffffffu, (++counter) & 0xfffffffffffffull);
    return buf;
}

std::string read_body(FCGX_Request& r, std::size_t limit, bool& too_large) {
    std::string body;
    char buf[8192];
    while (true) {
        const int n = FCGX_GetStr(buf, sizeof buf, r.in);
        if (n <= 0) break;
        if (body.size() + static_cast<std::size_t>(n) > limit) {
            too_large = true;
            return {};
        }
        body.append(buf, static_cast<std::size_t>(n));
    }
    return body;
}

}  // namespace

core::http_request read_request(FCGX_Request& r, std::size_t body_limit) {
    core::http_request req;
    const params p{r};
    req.method = p.text(param::request_method);
    req.path = p.text(param::document_uri);
    if (req.path.empty()) req.path = p.text(param::script_name) + p.text(param::path_info);
    req.query = p.text(param::query_string);
    req.content_type = p.text(param::content_type);
    req.soap_action = p.optional(param::soap_action);
    req.idempotency_key = p.optional(param::idempotency_key);
    req.traceparent = p.optional(param::traceparent);
    req.host = p.text(param::host);
    const auto scheme = p.text(param::request_scheme);
    req.scheme = !scheme.empty() ? scheme : (p.text(param::https) == "on" ? "https" : "http");
    req.remote_addr = p.text(param::remote_addr);
    req.remote_port = p.text(param::remote_port);
    req.request_id = p.text(param::request_id);
    // Only an id of keeper's own form, as nginx makes it (13 digits of time, 19 hex digits): the id
    // names the call's claim, which a retried call's settling ends the holder of, and its time is
    // when nginx (or the front) first saw the call, where the call's deadline counts from, here and
    // in the database (db/functions/keeper_claim.sql). Any other (a peer of the sockets that is not
    // nginx) is replaced, so that it can neither skip that check nor name another call.
    if (const auto seen = core::request_id_time(req.request_id)) {
        req.sent_at = std::chrono::time_point_cast<std::chrono::system_clock::duration>(*seen);
    } else {
        req.request_id = make_request_id();
    }

    const auto length_text = p.text(param::content_length);
    unsigned long long declared = 0;
    std::from_chars(length_text.data(), length_text.data() + length_text.size(), declared);
    if (declared > body_limit) {
        req.body_too_large = true;  // refused before reading a byte of it
    } else {
        req.body = read_body(r, body_limit, req.body_too_large);
    }
    return req;
}

void write_response(FCGX_Request& r, const core::http_response& res, const std::string& request_id) {
    // A status without a phrase would still be read by its code (a unit test keeps the table whole).
    const auto phrase = core::reason_phrase(res.status);
    std::string head;  // appended in place: one allocation, not one a header
    head.reserve(256);
    head.append("Status: ").append(std::to_string(res.status));
    if (phrase) head.append(" ").append(*phrase);
    head.append("\r\nContent-Type: ").append(res.content_type);
    head.append("\r\nContent-Length: ").append(std::to_string(res.body.size()));
    head.append("\r\nX-Request-Id: ").append(request_id).append("\r\n");
    for (const auto& [name, value] : res.headers) head.append(name).append(": ").append(value).append("\r\n");
    head.append("\r\n");
    FCGX_PutStr(head.data(), static_cast<int>(head.size()), r.out);
    FCGX_PutStr(res.body.data(), static_cast<int>(res.body.size()), r.out);
}

exchange exchange_one(FCGX_Request& request, int fd, std::size_t body_limit, bool retried, const responder& respond) {
    auto begun = begin_exchange(request, fd, body_limit, retried);
    if (!begun.request) return std::move(begun.out);
    auto answered = respond(*begun.request);
    return finish_exchange(request, std::move(begun), std::move(answered));
}

begun_exchange begin_exchange(FCGX_Request& request, int fd, std::size_t body_limit, bool retried) {
    begun_exchange begun;
    request.ipcFd = fd;
    request.keepConnection = 1;  // Accept_r first "finishes" the previous request: keep this fd open
    request.detached = 1;
    if (FCGX_Accept_r(&request) != 0) {  // nginx closed it, and libfcgi closed fd
        begun.out.closed = request.ipcFd < 0;
        request.ipcFd = -1;
        return begun;
    }
    // Whether nginx keeps the connection is the caller's to act on: libfcgi closes nothing when
    // the request ends well.
    begun.keep = request.keepConnection;
    request.keepConnection = 1;
    try {
        const auto started = std::chrono::steady_clock::now();
        auto req = read_request(request, body_limit);
        req.retried = retried;
        req.arrived = started;
        begun.request = std::move(req);
    } catch (const std::exception& e) {
        // Only the FastCGI stream can get here: nginx is gone.
        begun.out.aborted = e.what();
        FCGX_Finish_r(&request);
        begun.out.closed = request.ipcFd < 0;
        request.ipcFd = -1;
    }
    return begun;
}

exchange finish_exchange(FCGX_Request& request, begun_exchange begun, core::handled_request answered) {
    exchange out = std::move(begun.out);
    try {
        out.request_id = begun.request->request_id;
        out.answered = std::move(answered);
        write_response(request, out.answered->response, out.request_id);
        FCGX_Finish_r(&request);
        out.open = request.ipcFd >= 0 && begun.keep;
    } catch (const std::exception& e) {
        // Only the FastCGI stream can get here (the responders never throw): nginx is gone.
        out.answered.reset();
        out.aborted = e.what();
        FCGX_Finish_r(&request);
    }
    out.closed = request.ipcFd < 0;
    request.ipcFd = -1;
    return out;
}

}  // namespace keeper::fcgi
