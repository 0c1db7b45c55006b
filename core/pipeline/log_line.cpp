#include "core/pipeline/log_line.hpp"

#include <cstdio>
#include <utility>
#include <vector>

#include "core/wire/transport_table.hpp"

namespace keeper::core {
namespace {

// Printable ASCII only, quoted when it has spaces; anything else becomes '?'.
std::string text_value(std::string_view v) {
    std::string out;
    bool quote = v.empty();
    for (char c : v) {
        if (c == ' ') quote = true;
        out += (c >= 0x20 && c < 0x7F && c != '"' && c != '\\') ? c : '?';
    }
    return quote ? "\"" + out + "\"" : out;
}

// A JSON string of the same printable ASCII: anything else becomes '?', as in the text form, so
// both forms hold the same value and no byte a reader could take for a line's end.
std::string json_value(std::string_view v) {
    std::string out = "\"";
    for (char c : v) {
        if (c == '"' || c == '\\') out += '\\';
        out += (c >= 0x20 && c < 0x7F) ? c : '?';
    }
    return out + "\"";
}

// A line's fields in order: a name, and its value already written as a JSON literal (a number, a
// boolean) or as text to quote.
struct field {
    std::string name;
    std::string value;
    bool literal = false;
};

std::string write(const std::vector<field>& fields, log_format_kind format) {
    std::string line;
    for (const auto& f : fields) {
        if (format == log_format_kind::json) {
            line += (line.empty() ? "{" : ",") + json_value(f.name) + ":" + (f.literal ? f.value : json_value(f.value));
        } else {
            line += (line.empty() ? "" : " ") + f.name + "=" + (f.literal ? f.value : text_value(f.value));
        }
    }
    return format == log_format_kind::json ? line + "}" : line;
}

}  // namespace

std::string format_log_line(const std::string& request_id, const handled_request& handled,
                            std::chrono::microseconds took, log_format_kind format) {
    const auto& log = handled.log;
    char ms[32];
    std::snprintf(ms, sizeof ms, "%.3f", static_cast<double>(took.count()) / 1000.0);
    std::vector<field> fields{{"request_id", request_id}};
    if (!log.trace_id.empty()) fields.push_back({"trace_id", log.trace_id});
    fields.insert(fields.end(), {{"group", log.group},
                                 {"operation", log.operation},
                                 {"transport", std::string{transport_name(log.via)}},
                                 {"outcome", log.outcome},
                                 {"status", std::to_string(handled.response.status), true},
                                 {"duration_ms", ms, true}});
    if (log.replayed) fields.push_back({"replayed", "true", true});
    if (log.retried) fields.push_back({"retried", "true", true});
    if (!log.detail.empty()) fields.push_back({"detail", log.detail});
    return write(fields, format);
}

std::string format_event(std::string_view source, std::string_view message, log_format_kind format) {
    if (format == log_format_kind::text) return std::string{source} + ": " + std::string{message};
    return write({{"source", std::string{source}}, {"message", std::string{message}}}, format);
}

}  // namespace keeper::core
