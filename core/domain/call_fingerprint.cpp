#include "core/domain/call_fingerprint.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <stdexcept>

#include "core/api/digest.hpp"
#include "core/api/text_util.hpp"
#include "core/domain/formats.hpp"
#include "core/domain/money.hpp"
#include "core/domain/param_rules.hpp"

namespace keeper::core {
namespace {

// A double as the shortest text that reads back to the same value: 10 and 10.0 are one amount.
std::string canonical(double v) {
    std::array<char, 32> buf{};
    const auto [end, ec] = std::to_chars(buf.data(), buf.data() + buf.size(), v);
    return ec == std::errc{} ? std::string(buf.data(), end) : std::string{"nan"};
}

std::string canonical(const param_value& v) {
    return std::visit(
        [](const auto& x) -> std::string {
            using T = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<T, std::string>) return x;
            else if constexpr (std::is_same_v<T, bool>) return x ? "true" : "false";
            else if constexpr (std::is_same_v<T, double>) return canonical(x);
            else if constexpr (std::is_same_v<T, provider>) return std::to_string(static_cast<int>(x));
            else return std::to_string(x);
        },
        v);
}

// An operation that uses a session answers session_not_found without one; one that does not
// (Authenticate) binds the session id it is given, so there the id is what the call writes.
bool binds_its_session(const operation& op) {
    return std::ranges::find(op.results, result_code::session_not_found) == op.results.end();
}

// What a parameter contributes to the call's meaning (param_rules.cpp says it of each).
call_meaning meaning_of(const operation& op, std::string_view param) {
    if (param == "sessionId" && binds_its_session(op)) return call_meaning::as_decoded;
    const auto* rule = find_param_rule(param);
    return rule ? rule->meaning : call_meaning::as_decoded;
}

// The value as the handler reads it; a value the handler refuses stays as decoded (the call
// answers 1 whatever it is).
std::string normalised(call_meaning m, const param_value& v) {
    const auto* text = std::get_if<std::string>(&v);
    if (m == call_meaning::purse && text) return formats::normalize_purse(*text).value_or(*text);
    if (m == call_meaning::lower_case && text) return to_lower_utf8(*text);
    if (const auto* amount = std::get_if<double>(&v); m == call_meaning::amount && amount) {
        return amount_text(*amount).value_or(canonical(*amount));
    }
    return canonical(v);
}

void add_field(std::string& input, std::string_view field) {
    input += std::to_string(field.size());
    input += ':';
    input += field;
}

}  // namespace

std::string call_fingerprint(const decoded_call& call) {
    std::string input{"v2"};
    add_field(input, group_name(call.op->group));
    add_field(input, call.op->name);
    for (std::size_t i = 0; i < call.args.size(); ++i) {
        const auto& param = call.op->params.at(i).name;
        const auto m = meaning_of(*call.op, param);
        if (m == call_meaning::none) continue;
        add_field(input, param);
        add_field(input, normalised(m, call.args[i]));
    }
    return sha256_hex(input);
}

}  // namespace keeper::core
