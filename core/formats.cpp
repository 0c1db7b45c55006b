#include "formats.hpp"

#include "text_util.hpp"

namespace keeper::core::formats {
namespace {

bool is_hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

bool is_session_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_' || c == '{' || c == '}';
}

bool is_short_text(std::string_view s) {
    const auto length = utf8_length(s);
    return length && *length >= 1 && *length <= 64 && !has_control_characters(s);
}

}  // namespace

bool is_session_id(std::string_view s) {
    if (s.empty() || s.size() > 64) return false;
    for (char c : s) {
        if (!is_session_char(c)) return false;
    }
    return true;
}

bool is_login(std::string_view s) { return is_short_text(s); }
bool is_app_id(std::string_view s) { return is_short_text(s); }
bool is_user_id(std::string_view s) { return is_short_text(s); }

bool is_auth_hash(std::string_view s) {
    if (s.size() != 32) return false;
    for (char c : s) {
        if (!is_hex(c)) return false;
    }
    return true;
}

}  // namespace keeper::core::formats
