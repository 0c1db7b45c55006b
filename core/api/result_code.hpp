#pragma once
// The int results of the API (docs/api.md). Every int an operation returns is one of these.

namespace keeper::core {

enum class result_code : int {
    ok = 0,
    invalid_argument = 1,
    session_not_found = 2,
    session_expired = 3,
    auth_failed = 4,
    not_found = 5,
    wrong_code = 6,
    attempts_exceeded = 7,
    already_completed = 8,
    limit_exceeded = 9,
    unknown_application = 10,
    too_many_attempts = 11,
    expired = 12,
};

inline constexpr int last_result_code = 12;

}  // namespace keeper::core
