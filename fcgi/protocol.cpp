#include "protocol.hpp"

#include <fastcgi.h>

#include <algorithm>
#include <optional>

namespace keeper::fcgi::protocol {
namespace {

std::uint16_t two_bytes(std::string_view s, std::size_t at) {
    return static_cast<std::uint16_t>(static_cast<unsigned char>(s[at]) << 8 | static_cast<unsigned char>(s[at + 1]));
}

void append_header(std::string& out, std::uint8_t type, std::uint16_t id, std::size_t length) {
    const char header[FCGI_HEADER_LEN] = {FCGI_VERSION_1,
                                          static_cast<char>(type),
                                          static_cast<char>(id >> 8),
                                          static_cast<char>(id & 0xff),
                                          static_cast<char>(length >> 8),
                                          static_cast<char>(length & 0xff),
                                          0,
                                          0};
    out.append(header, sizeof header);
}

void append_end_request(std::string& out, std::uint16_t id, std::uint8_t protocol_status) {
    append_header(out, FCGI_END_REQUEST, id, sizeof(FCGI_EndRequestBody));
    const char body[sizeof(FCGI_EndRequestBody)] = {0, 0, 0, 0, static_cast<char>(protocol_status), 0, 0, 0};
    out.append(body, sizeof body);
}

// A name's or value's length: one byte below 128, else four with the top bit set.
std::optional<std::size_t> pair_length(std::string_view s, std::size_t& at) {
    if (at >= s.size()) return std::nullopt;
    const auto first = static_cast<unsigned char>(s[at]);
    if (first < 0x80) {
        ++at;
        return first;
    }
    if (s.size() - at < 4) return std::nullopt;
    std::size_t n = first & 0x7fu;
    for (std::size_t i = 1; i < 4; ++i) n = n << 8 | static_cast<unsigned char>(s[at + i]);
    at += 4;
    return n;
}

// The name-value pairs of PARAMS or GET_VALUES content; nullopt if one is cut short.
std::optional<std::vector<param>> decode_pairs(std::string_view s) {
    std::vector<param> pairs;
    std::size_t at = 0;
    while (at < s.size()) {
        const auto name_length = pair_length(s, at);
        const auto value_length = name_length ? pair_length(s, at) : std::nullopt;
        if (!value_length || s.size() - at < *name_length || s.size() - at - *name_length < *value_length) {
            return std::nullopt;
        }
        pairs.push_back({s.substr(at, *name_length), s.substr(at + *name_length, *value_length)});
        at += *name_length + *value_length;
    }
    return pairs;
}

void append_pair(std::string& out, std::string_view name, std::string_view value) {
    // Names and values written here are short: one-byte lengths.
    out.push_back(static_cast<char>(name.size()));
    out.push_back(static_cast<char>(value.size()));
    out.append(name).append(value);
}

}  // namespace

request_decoder::progress request_decoder::feed(std::string_view bytes) {
    if (!bytes.empty()) m_started = true;
    if (m_stage == stage::done) {
        if (!bytes.empty()) m_pending.append(bytes);  // unread: the connection cannot carry another request
        return progress::complete;
    }
    if (m_stage == stage::failed) return progress::failed;
    if (m_at == m_pending.size() && !bytes.empty()) {
        // Nothing pending (a request that fits one read): decoded where the bytes lie, and only
        // what is left (a record cut short, or records after the news) kept for the next feed.
        std::size_t at = 0;
        const auto p = step(bytes, at);
        m_pending.assign(bytes.substr(at));
        m_at = 0;
        return p;
    }
    m_pending.append(bytes);
    const auto p = step(m_pending, m_at);
    // Compacted once a feed, not once a record.
    if (m_stage != stage::done) {
        m_pending.erase(0, m_at);
        m_at = 0;
    }
    return p;
}

// Decodes the whole records of buffer from `at` on, moving `at` past each.
request_decoder::progress request_decoder::step(std::string_view buffer, std::size_t& at) {
    while (buffer.size() - at >= FCGI_HEADER_LEN) {
        const std::string_view rest = buffer.substr(at);
        if (rest[0] != FCGI_VERSION_1) {
            fail("not a FastCGI 1 record");
            return progress::failed;
        }
        const auto length = two_bytes(rest, 4);
        const auto padding = static_cast<unsigned char>(rest[6]);
        const std::size_t whole = FCGI_HEADER_LEN + length + padding;
        if (rest.size() < whole) break;
        at += whole;
        if (!record(static_cast<std::uint8_t>(rest[1]), two_bytes(rest, 2), rest.substr(FCGI_HEADER_LEN, length))) {
            return progress::failed;
        }
        if (m_stage == stage::done) return progress::complete;
        if (m_stage == stage::body && !m_params_announced) {
            m_params_announced = true;
            return progress::params_read;
        }
    }
    return progress::reading;
}

bool request_decoder::record(std::uint8_t type, std::uint16_t id, std::string_view content) {
    if (id == FCGI_NULL_REQUEST_ID) {
        management(type, content);
        return true;
    }
    if (type == FCGI_BEGIN_REQUEST) return begin_request(id, content);
    if (id != m_id) return true;  // a request that is not being read: ignored
    switch (type) {
        case FCGI_ABORT_REQUEST:
            return fail("the web server aborted the request");
        case FCGI_PARAMS:
            return params_record(content);
        case FCGI_STDIN:
            return stdin_record(content);
        case FCGI_DATA:
            return true;  // a filter's second stream: a responder has none to read
        default:
            return fail("a record a web server does not send (type " + std::to_string(type) + ")");
    }
}

bool request_decoder::begin_request(std::uint16_t id, std::string_view content) {
    if (content.size() != sizeof(FCGI_BeginRequestBody)) return fail("a begin-request record of the wrong length");
    if (m_id != 0) {
        if (id == m_id) return fail("a request begun twice");
        append_end_request(m_replies, id, FCGI_CANT_MPX_CONN);
        return true;
    }
    if (two_bytes(content, 0) != FCGI_RESPONDER) {
        append_end_request(m_replies, id, FCGI_UNKNOWN_ROLE);
        return true;
    }
    m_id = id;
    m_keep = (static_cast<unsigned char>(content[2]) & FCGI_KEEP_CONN) != 0;
    m_stage = stage::params;
    return true;
}

bool request_decoder::params_record(std::string_view content) {
    if (m_stage != stage::params) return fail("parameters after their end");
    if (!content.empty()) {
        if (m_param_bytes.size() + content.size() > params_limit) return fail("parameters over 1 MiB");
        m_param_bytes.append(content);
        return true;
    }
    auto pairs = decode_pairs(m_param_bytes);
    if (!pairs) return fail("a parameter cut short");
    m_params = std::move(*pairs);
    m_stage = stage::body;
    return true;
}

bool request_decoder::stdin_record(std::string_view content) {
    if (m_stage != stage::body) return fail("a body before the parameters' end");
    if (content.empty() || m_body_too_large) {
        m_stage = stage::done;
        return true;
    }
    if (m_body.size() + content.size() > m_body_limit) {
        m_body_too_large = true;
        m_body.clear();
        m_stage = stage::done;  // the rest is never read: the connection ends after the answer
        return true;
    }
    m_body.append(content);
    return true;
}

void request_decoder::management(std::uint8_t type, std::string_view content) {
    if (type != FCGI_GET_VALUES) {
        append_header(m_replies, FCGI_UNKNOWN_TYPE, FCGI_NULL_REQUEST_ID, sizeof(FCGI_UnknownTypeBody));
        const char body[sizeof(FCGI_UnknownTypeBody)] = {static_cast<char>(type)};
        m_replies.append(body, sizeof body);
        return;
    }
    // Only the one variable keeper knows for any connection: it multiplexes none.
    std::string values;
    const auto asked = decode_pairs(content);
    if (asked && std::any_of(asked->begin(), asked->end(), [](const param& p) { return p.name == FCGI_MPXS_CONNS; })) {
        append_pair(values, FCGI_MPXS_CONNS, "0");
    }
    append_header(m_replies, FCGI_GET_VALUES_RESULT, FCGI_NULL_REQUEST_ID, values.size());
    m_replies.append(values);
}

bool request_decoder::reusable() const {
    return m_stage == stage::done && m_keep && !m_body_too_large && m_pending.size() == m_at;
}

bool request_decoder::fail(std::string why) {
    m_stage = stage::failed;
    m_error = std::move(why);
    return false;
}

std::string encode_response(std::uint16_t request_id, std::string_view head, std::string_view body) {
    const std::size_t records = (head.size() + body.size()) / FCGI_MAX_LENGTH + 2;
    std::string out;
    out.reserve(head.size() + body.size() + records * FCGI_HEADER_LEN + sizeof(FCGI_EndRequestRecord));
    // The head and the body as one stream, cut where a record is full.
    std::size_t room = 0;
    const std::string_view parts[] = {head, body};
    for (std::size_t i = 0; i < 2; ++i) {
        auto part = parts[i];
        while (!part.empty()) {
            if (room == 0) {
                const std::size_t left = part.size() + (i == 0 ? body.size() : 0);
                room = std::min<std::size_t>(left, FCGI_MAX_LENGTH);
                append_header(out, FCGI_STDOUT, request_id, room);
            }
            const auto n = std::min(room, part.size());
            out.append(part.substr(0, n));
            part.remove_prefix(n);
            room -= n;
        }
    }
    append_header(out, FCGI_STDOUT, request_id, 0);
    append_end_request(out, request_id, FCGI_REQUEST_COMPLETE);
    return out;
}

}  // namespace keeper::fcgi::protocol
