#include "core/wire/text_decoders.hpp"

#include <charconv>
#include <cmath>
#include <limits>

#include "core/api/text_util.hpp"

namespace keeper::core {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// [+-]?[0-9]+ into T, failing on overflow. from_chars itself rejects a leading '+'.
template <typename T>
std::optional<T> parse_integer(std::string_view s) {
    if (!s.empty() && s.front() == '+') {
        s.remove_prefix(1);
        if (!s.empty() && s.front() == '-') return std::nullopt;
    }
    if (s.empty()) return std::nullopt;
    T value{};
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
    if (ec != std::errc{} || end != s.data() + s.size()) return std::nullopt;
    return value;
}

// (+|-)? (digits (. digits?)? | . digits) ([eE] (+|-)? digits)? — the finite lexical form that
// XML Schema's double and .NET's invariant Float style share (no thousands separators, no hex).
bool is_decimal_lexical(std::string_view s) {
    std::size_t i = 0;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    std::size_t digits = 0;
    while (i < s.size() && is_digit(s[i])) ++i, ++digits;
    if (i < s.size() && s[i] == '.') {
        ++i;
        while (i < s.size() && is_digit(s[i])) ++i, ++digits;
    }
    if (digits == 0) return false;
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
        ++i;
        if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
        std::size_t exponent_digits = 0;
        while (i < s.size() && is_digit(s[i])) ++i, ++exponent_digits;
        if (exponent_digits == 0) return false;
    }
    return i == s.size();
}

std::optional<double> parse_finite_double(std::string_view s) {
    if (!is_decimal_lexical(s)) return std::nullopt;
    if (s.front() == '+') s.remove_prefix(1);
    double value = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
    if (ec != std::errc{} || end != s.data() + s.size()) return std::nullopt;  // out of range too
    return value;
}

// A double written as a finite decimal or as one of the lexicon's words for infinity and NaN.
std::optional<double> lexicon_double(std::string_view s, std::string_view infinity) {
    constexpr auto inf = std::numeric_limits<double>::infinity();
    if (s == infinity) return inf;
    if (s.starts_with('-') && s.substr(1) == infinity) return -inf;
    if (s == "NaN") return std::numeric_limits<double>::quiet_NaN();
    return parse_finite_double(s);
}

std::optional<double> xsd_double(std::string_view s) { return lexicon_double(s, "INF"); }

std::optional<double> invariant_double(std::string_view s) { return lexicon_double(s, "Infinity"); }

std::optional<bool> xsd_boolean(std::string_view s) {
    if (s == "true" || s == "1") return true;
    if (s == "false" || s == "0") return false;
    return std::nullopt;
}

std::optional<bool> invariant_boolean(std::string_view s) {
    if (s == "1" || iequals_ascii(s, "true")) return true;
    if (s == "0" || iequals_ascii(s, "false")) return false;
    return std::nullopt;
}

template <typename T>
std::optional<param_value> wrap(std::optional<T> v) {
    if (!v) return std::nullopt;
    return param_value{*v};
}

std::optional<param_value> decode_enum(std::string_view s) { return wrap(provider_from_name(s)); }

// How a boolean and a double are written: XML Schema's lexical forms in SOAP, .NET's invariant
// culture in forms and query strings. Everything else reads alike.
struct lexicon {
    std::optional<bool> (*boolean)(std::string_view);
    std::optional<double> (*float64)(std::string_view);
};
constexpr lexicon xsd_lexicon{&xsd_boolean, &xsd_double};
constexpr lexicon invariant_lexicon{&invariant_boolean, &invariant_double};

std::optional<param_value> decode_text(const lexicon& words, param_type type, std::string_view text) {
    switch (type) {
        case param_type::string:
            return param_value{std::string{text}};
        case param_type::boolean:
            return wrap(words.boolean(trim_xml_space(text)));
        case param_type::int32:
            return wrap(parse_integer<std::int32_t>(trim_xml_space(text)));
        case param_type::int64:
            return wrap(parse_integer<std::int64_t>(trim_xml_space(text)));
        case param_type::float64:
            return wrap(words.float64(trim_xml_space(text)));
        case param_type::provider:
            return decode_enum(text);
    }
    return std::nullopt;
}

}  // namespace

std::optional<param_value> decode_xsd(param_type type, std::string_view text) {
    return decode_text(xsd_lexicon, type, text);
}

std::optional<param_value> decode_form(param_type type, std::string_view text) {
    return decode_text(invariant_lexicon, type, text);
}

}  // namespace keeper::core
