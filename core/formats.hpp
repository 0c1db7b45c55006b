#pragma once
// The identifier formats of SPEC.md §3. A value out of its format is result 1 (InvalidArgument).
#include <string_view>

namespace keeper::core::formats {

bool is_session_id(std::string_view s);  // 1-64 of A-Za-z0-9-_{}
bool is_login(std::string_view s);       // 1-64 characters (UTF-8), no control characters
bool is_app_id(std::string_view s);      // as login
bool is_user_id(std::string_view s);     // as login
bool is_auth_hash(std::string_view s);   // 32 hex digits, either case

}  // namespace keeper::core::formats
