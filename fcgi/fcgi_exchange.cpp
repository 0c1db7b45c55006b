#include "fcgi_exchange.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cerrno>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "core/api/date_time.hpp"
#include "core/api/http_status.hpp"
#include "core/api/request_id.hpp"
#include "protocol.hpp"

namespace keeper::fcgi {
namespace {

// The FastCGI parameters a request is read from, each found in one pass over the request's list
// (a lookup of each name in turn, as libfcgi's FCGX_GetParam did, cost a twentieth of a worker's
// CPU on a GetUtcNow: bench/history.md, "The fixed costs of every call").
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
    explicit params(const std::vector<protocol::param>& list) {
        for (const auto& [key, value] : list) {
            for (std::size_t i = 0; i < names.size(); ++i) {
                if (key != names[i]) continue;
                if (!m_values[i]) m_values[i] = value;  // the first, as CGI's getenv would
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

using progress = protocol::request_decoder::progress;

bool send_all(int fd, std::string_view bytes, std::string& aborted) {
    while (!bytes.empty()) {
        const auto n = send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            aborted = "writing the answer: " + std::system_category().message(errno);
            return false;
        }
        bytes.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
}

// Reads until the decoder has news: the parameters whole, the request complete, or the stream
// broken (said in `aborted`; nothing said when nginx closed a connection between requests).
progress read_more(int fd, protocol::request_decoder& decoder, std::string& aborted) {
    char buf[16384];
    for (;;) {
        const auto n = read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) aborted = "reading the request: " + std::system_category().message(errno);
        if (n == 0 && decoder.started()) aborted = "the web server closed the connection mid-request";
        if (n <= 0) return progress::failed;
        const auto p = decoder.feed({buf, static_cast<std::size_t>(n)});
        if (const auto replies = decoder.take_replies(); !replies.empty() && !send_all(fd, replies, aborted)) {
            return progress::failed;
        }
        if (p == progress::failed) aborted = decoder.error();
        if (p != progress::reading) return p;
    }
}

// What nginx says of the call, from its parameters.
core::http_request request_of(const params& p) {
    core::http_request req;
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
    return req;
}

// The declared length, to refuse a body too long before reading a byte of it.
bool declares_too_much(const params& p, std::size_t body_limit) {
    const auto length_text = p.text(param::content_length);
    unsigned long long declared = 0;
    std::from_chars(length_text.data(), length_text.data() + length_text.size(), declared);
    return declared > body_limit;
}

std::string response_head(const core::http_response& res, const std::string& request_id) {
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
    return head;
}

}  // namespace

exchange exchange_one(int fd, std::size_t body_limit, bool retried, const responder& respond) {
    auto begun = begin_exchange(fd, body_limit, retried);
    if (!begun.request) return std::move(begun.out);
    auto answered = respond(*begun.request);
    return finish_exchange(fd, std::move(begun), std::move(answered));
}

begun_exchange begin_exchange(int fd, std::size_t body_limit, bool retried) {
    begun_exchange begun;
    protocol::request_decoder decoder{body_limit};
    if (read_more(fd, decoder, begun.out.aborted) != progress::params_read) return begun;
    const auto started = std::chrono::steady_clock::now();
    const params p{decoder.params()};
    auto req = request_of(p);
    req.retried = retried;
    req.arrived = started;
    if (declares_too_much(p, body_limit)) {
        req.body_too_large = true;  // refused before reading a byte of it; the connection ends after the answer
    } else {
        auto got = decoder.feed({});
        if (got == progress::reading) got = read_more(fd, decoder, begun.out.aborted);
        if (got == progress::failed) return begun;
        req.body = decoder.take_body();
        req.body_too_large = decoder.body_too_large();
        begun.keep = decoder.reusable();
    }
    begun.fastcgi_id = decoder.request_id();
    begun.request = std::move(req);
    return begun;
}

exchange finish_exchange(int fd, begun_exchange begun, core::handled_request answered) {
    exchange out = std::move(begun.out);
    out.request_id = begun.request->request_id;
    const auto& res = answered.response;
    if (send_all(fd, protocol::encode_response(begun.fastcgi_id, response_head(res, out.request_id), res.body),
                 out.aborted)) {
        out.answered = std::move(answered);
        out.open = begun.keep;
    }
    return out;
}

}  // namespace keeper::fcgi
