#include "core/wire/json_writer.hpp"

#include <chrono>
#include <nlohmann/json.hpp>

namespace keeper::core {
namespace {

// Millisecond ticks since the Unix epoch, rounded down as .NET's DateTime → JavaScript does.
std::string ajax_date(utc_time t) {
    const auto ms = std::chrono::floor<std::chrono::milliseconds>(t).time_since_epoch().count();
    return R"("\/Date()" + std::to_string(ms) + R"()\/")";
}

}  // namespace

std::string json_string(std::string_view text) {
    const auto dumped =
        nlohmann::json(std::string{text}).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    std::string out;
    out.reserve(dumped.size());
    for (const char c : dumped) {
        switch (c) {  // raw in nlohmann's output only as themselves, never inside an escape
            case '<':
                out += "\\u003c";
                break;
            case '>':
                out += "\\u003e";
                break;
            case '&':
                out += "\\u0026";
                break;
            case '\'':
                out += "\\u0027";
                break;
            default:
                out += c;
        }
    }
    return out;
}

std::string json_value(const result_value& value) {
    if (const auto* code = std::get_if<result_code>(&value)) return std::to_string(static_cast<int>(*code));
    if (const auto* time = std::get_if<utc_time>(&value)) return ajax_date(*time);
    return json_string(std::get<std::string>(value));
}

http_response write_json_result(const operation&, const result_value& value, std::string_view) {
    return {200, std::string{json_content_type}, {}, R"({"d":)" + json_value(value) + "}"};
}

http_response write_json_fault(const fault& f) {
    int status = 400;
    if (f.kind() == fault_kind::unknown_operation) status = 404;
    if (f.kind() == fault_kind::server) status = 500;
    if (f.kind() == fault_kind::key_reused) status = 422;
    if (f.kind() == fault_kind::key_in_flight) status = 409;
    if (f.kind() == fault_kind::not_applied) status = 503;
    return {status,
            std::string{json_content_type},
            {{"jsonerror", "true"}},
            R"({"Message":)" + json_string(f.what()) + "}"};
}

}  // namespace keeper::core
