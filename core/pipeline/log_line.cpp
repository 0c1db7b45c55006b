#include "core/pipeline/log_line.hpp"

#include <algorithm>
#include <charconv>

#include "core/wire/transport_table.hpp"

namespace keeper::core {
namespace {

bool printable(char c) { return c >= 0x20 && c < 0x7F; }
// A byte both forms write as it is.
bool plain(char c) { return printable(c) && c != '"' && c != '\\'; }
bool all_plain(std::string_view v) {
    return std::all_of(v.begin(), v.end(), [](char c) { return plain(c); });  // inlined, unlike a pointer
}

// One line, its fields appended in order straight into the string (one a request, so no field
// list is built): a name, and its value as a JSON literal (a number, a boolean) or as text to
// quote. Text is printable ASCII only; anything else becomes '?' in both forms, so both hold the
// same value and no byte a reader could take for a line's end.
class line_writer {
public:
    explicit line_writer(log_format_kind format) : m_json(format == log_format_kind::json) { m_line.reserve(256); }

    void text(std::string_view name, std::string_view value) {
        start(name);
        if (m_json) {
            json_string(value);
        } else {
            const bool quote = value.empty() || value.find(' ') != std::string_view::npos;
            if (quote) m_line += '"';
            if (all_plain(value)) {
                m_line += value;  // most values: one append, not a capacity check per byte
            } else {
                for (char c : value) m_line += plain(c) ? c : '?';
            }
            if (quote) m_line += '"';
        }
    }

    void literal(std::string_view name, std::string_view value) {
        start(name);
        m_line += value;
    }

    std::string finish() && {
        if (m_json) m_line += '}';
        return std::move(m_line);
    }

private:
    void start(std::string_view name) {
        if (m_json) {
            m_line += m_line.empty() ? '{' : ',';
            json_string(name);
            m_line += ':';
        } else {
            if (!m_line.empty()) m_line += ' ';
            m_line += name;
            m_line += '=';
        }
    }

    void json_string(std::string_view v) {
        m_line += '"';
        if (all_plain(v)) {
            m_line += v;
        } else {
            for (char c : v) {
                if (c == '"' || c == '\\') m_line += '\\';
                m_line += printable(c) ? c : '?';
            }
        }
        m_line += '"';
    }

    bool m_json;
    std::string m_line;
};

// Milliseconds with three decimals, as "%.3f" writes them.
std::string milliseconds(std::chrono::microseconds took) {
    const auto us = took.count() < 0 ? 0 : took.count();
    char buf[32];
    char* end = std::to_chars(buf, buf + sizeof buf - 4, us / 1000).ptr;
    const auto fraction = us % 1000;
    *end++ = '.';
    *end++ = static_cast<char>('0' + fraction / 100);
    *end++ = static_cast<char>('0' + fraction / 10 % 10);
    *end++ = static_cast<char>('0' + fraction % 10);
    return {buf, end};
}

}  // namespace

std::string format_log_line(const std::string& request_id, const handled_request& handled,
                            std::chrono::microseconds took, log_format_kind format) {
    const auto& log = handled.log;
    line_writer line{format};
    line.text("request_id", request_id);
    if (!log.trace_id.empty()) line.text("trace_id", log.trace_id);
    line.text("group", log.group);
    line.text("operation", log.operation);
    line.text("transport", transport_name(log.via));
    line.text("outcome", log.outcome);
    char status[16];
    line.literal("status", {status, std::to_chars(status, status + sizeof status, handled.response.status).ptr});
    line.literal("duration_ms", milliseconds(took));
    if (log.replayed) line.literal("replayed", "true");
    if (log.retried) line.literal("retried", "true");
    if (!log.detail.empty()) line.text("detail", log.detail);
    return std::move(line).finish();
}

std::string format_event(std::string_view source, std::string_view message, log_format_kind format) {
    if (format == log_format_kind::text) return std::string{source} + ": " + std::string{message};
    line_writer line{format};
    line.text("source", source);
    line.text("message", message);
    return std::move(line).finish();
}

}  // namespace keeper::core
