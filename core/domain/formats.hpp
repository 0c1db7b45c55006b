#pragma once
// The identifier formats of the API (docs/api.md names each parameter's). A value out of its
// format is result 1 (InvalidArgument).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace keeper::core::formats {

bool is_session_id(std::string_view s);  // 1-64 of A-Za-z0-9-_{}
bool is_login(std::string_view s);       // 1-64 characters (UTF-8), no control characters
bool is_app_id(std::string_view s);      // as login
bool is_user_id(std::string_view s);     // as login
bool is_auth_hash(std::string_view s);   // 32 hex digits, either case
bool is_wmid(std::string_view s);        // exactly 12 decimal digits
// One letter of ZEURBGXCKHY (either case) and 12 digits; returns it with the letter upper-cased.
std::optional<std::string> normalize_purse(std::string_view s);
bool is_positive_id(std::int64_t id);      // cardId, tranId and every other object id
bool is_push_user_id(std::string_view s);  // 1-512 characters (UTF-8)
bool is_locale(std::int32_t locale);       // 1033 or 1049
bool is_code(std::string_view s);          // protection/confirmation code: 1-64 characters, no controls
// Trimmed of white space; then 1-64 characters without control characters, or nullopt.
std::optional<std::string> normalize_profile_name(std::string_view s);

}  // namespace keeper::core::formats
