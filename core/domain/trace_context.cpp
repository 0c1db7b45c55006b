#include "core/domain/trace_context.hpp"

#include "core/api/text_util.hpp"

namespace keeper::core {
namespace {

bool all_zeros(std::string_view s) { return s.find_first_not_of('0') == std::string_view::npos; }

}  // namespace

std::optional<std::string> trace_id_of(std::string_view traceparent) {
    // 2 + 1 + 32 + 1 + 16 + 1 + 2 characters, dashes at 2, 35 and 52.
    if (traceparent.size() != 55 || traceparent[2] != '-' || traceparent[35] != '-' || traceparent[52] != '-')
        return std::nullopt;
    const auto version = traceparent.substr(0, 2);
    const auto trace = traceparent.substr(3, 32);
    const auto parent = traceparent.substr(36, 16);
    const auto flags = traceparent.substr(53, 2);
    if (version != "00" || !is_lower_hex(trace) || !is_lower_hex(parent) || !is_lower_hex(flags)) return std::nullopt;
    if (all_zeros(trace) || all_zeros(parent)) return std::nullopt;
    return std::string{trace};
}

std::string request_trace_id(const http_request& req) {
    return req.traceparent ? trace_id_of(*req.traceparent).value_or("") : "";
}

}  // namespace keeper::core
