#pragma once
// The first step of every operation that takes a sessionId (SPEC.md §4): unknown or never
// authenticated → 2, expired → 3. On success the audit row names the session's login.
#include <cstdint>
#include <string>

#include "../call_context.hpp"
#include "../result_code.hpp"

namespace keeper::core {

struct resolved_session {
    result_code code = result_code::session_not_found;  // ok when the session is valid
    std::int64_t login_id = 0;
    std::string login;
};

// session_id must already have passed formats::is_session_id.
resolved_session resolve_session(call_context& ctx, const std::string& session_id);

}  // namespace keeper::core
