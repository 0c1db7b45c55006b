#include "core/domain/idempotency_key.hpp"

#include "core/api/fault.hpp"

namespace keeper::core {
namespace {

[[noreturn]] void refuse() {
    throw fault(fault_kind::client,
                "The Idempotency-Key header must be 1 to 255 visible ASCII characters, bare or as a quoted string.");
}

bool visible_ascii(char c) { return c >= 0x21 && c <= 0x7E; }

std::string_view trimmed(std::string_view v) {
    while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
    while (!v.empty() && (v.back() == ' ' || v.back() == '\t')) v.remove_suffix(1);
    return v;
}

// An sf-string's content: backslash escapes only \" and \\ (RFC 8941, 3.3.3).
std::string unquoted(std::string_view v) {
    std::string out;
    for (std::size_t i = 1; i + 1 < v.size(); ++i) {
        char c = v[i];
        if (c == '"') refuse();
        if (c == '\\') {
            if (i + 2 >= v.size() || (v[i + 1] != '"' && v[i + 1] != '\\')) refuse();
            c = v[++i];
        }
        out += c;
    }
    return out;
}

}  // namespace

std::optional<std::string> read_idempotency_key(const std::optional<std::string>& header) {
    if (!header) return std::nullopt;
    const auto value = trimmed(*header);
    const bool quoted = value.size() >= 2 && value.front() == '"' && value.back() == '"';
    std::string key = quoted ? unquoted(value) : std::string{value};
    if (key.empty() || key.size() > idempotency_key_max_bytes) refuse();
    for (const char c : key) {
        if (!visible_ascii(c)) refuse();
    }
    return key;
}

}  // namespace keeper::core
