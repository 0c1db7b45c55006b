#include "core/domain/formats.hpp"

#include "core/api/text_util.hpp"

namespace keeper::core::formats {
namespace {

bool is_hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

bool is_session_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
           c == '{' || c == '}';
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

bool is_wmid(std::string_view s) {
    return s.size() == 12 && s.find_first_not_of("0123456789") == std::string_view::npos;
}

std::optional<std::string> normalize_purse(std::string_view s) {
    if (s.size() != 13) return std::nullopt;
    const char letter = static_cast<char>(s[0] >= 'a' && s[0] <= 'z' ? s[0] - 'a' + 'A' : s[0]);
    if (std::string_view{"ZEURBGXCKHY"}.find(letter) == std::string_view::npos) return std::nullopt;
    if (s.substr(1).find_first_not_of("0123456789") != std::string_view::npos) return std::nullopt;
    return std::string(1, letter) + std::string{s.substr(1)};
}

bool is_positive_id(std::int64_t id) { return id > 0; }

bool is_push_user_id(std::string_view s) {
    const auto length = utf8_length(s);
    return length && *length >= 1 && *length <= 512;
}

bool is_locale(std::int32_t locale) { return locale == 1033 || locale == 1049; }

bool is_code(std::string_view s) { return is_short_text(s); }

std::optional<std::string> normalize_profile_name(std::string_view s) {
    if (!utf8_length(s)) return std::nullopt;
    auto trimmed = trim_unicode_space(s);
    if (!is_short_text(trimmed)) return std::nullopt;
    return trimmed;
}

}  // namespace keeper::core::formats
