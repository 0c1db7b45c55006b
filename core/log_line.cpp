#include "core/log_line.hpp"

#include "core/wire/transport_table.hpp"

namespace keeper::core {
namespace {

// Printable ASCII only, quoted when it has spaces; anything else becomes '?'.
std::string value(std::string_view v) {
    std::string out;
    bool quote = v.empty();
    for (char c : v) {
        if (c == ' ') quote = true;
        out += (c >= 0x20 && c < 0x7F && c != '"' && c != '\\') ? c : '?';
    }
    return quote ? "\"" + out + "\"" : out;
}

}  // namespace

std::string format_log_line(const std::string& request_id, const handled_request& handled, std::chrono::microseconds took) {
    const auto& log = handled.log;
    std::string line = "request_id=" + value(request_id) + " group=" + value(log.group) +
                       " operation=" + value(log.operation) + " transport=" + value(transport_name(log.via)) +
                       " outcome=" + value(log.outcome) + " status=" + std::to_string(handled.response.status);
    char ms[32];
    std::snprintf(ms, sizeof ms, "%.3f", static_cast<double>(took.count()) / 1000.0);
    line += " duration_ms=";
    line += ms;
    if (log.replayed) line += " replayed=true";
    if (log.retried) line += " retried=true";
    if (!log.detail.empty()) line += " detail=" + value(log.detail);
    return line;
}

}  // namespace keeper::core
