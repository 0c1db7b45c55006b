#pragma once
// The int results of the API (docs/api.md). Every int an operation returns is one of these.
#include <array>
#include <string_view>

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

// Each code's name, by its value: the SQL functions name codes by these
// (db/functions/keeper_result.sql; a unit test compares the two).
inline constexpr std::array<std::string_view, last_result_code + 1> result_code_names{"ok",
                                                                                      "invalid_argument",
                                                                                      "session_not_found",
                                                                                      "session_expired",
                                                                                      "auth_failed",
                                                                                      "not_found",
                                                                                      "wrong_code",
                                                                                      "attempts_exceeded",
                                                                                      "already_completed",
                                                                                      "limit_exceeded",
                                                                                      "unknown_application",
                                                                                      "too_many_attempts",
                                                                                      "expired"};

}  // namespace keeper::core

namespace keeper::core {

// A result code as a store answered it: the call's own, or, for a repeat of a keyed call, the
// result the first call with the same Idempotency-Key recorded, nothing changed now
// (docs/api-decisions.md, "Idempotency-Key"). The answer then says so (Idempotent-Replayed).
struct store_result {
    constexpr store_result(result_code c, bool was_replayed = false)
        : code(c), replayed(was_replayed) {}  // NOLINT: a plain code converts
    result_code code;
    bool replayed;

    friend constexpr bool operator==(const store_result& r, result_code c) { return r.code == c; }
};

}  // namespace keeper::core
