#include "code_confirmation.hpp"

#include "../code_hash.hpp"

namespace keeper::core {

code_decision decide_code(const std::optional<coded_object>& object, std::string_view code, int max_attempts) {
    if (!object) return {result_code::not_found, code_action::none};
    const bool matches = code_matches(object->code_hash, code);
    switch (object->status) {
        case coded_status::done:
            return {matches ? result_code::ok : result_code::already_completed, code_action::none};
        case coded_status::locked: return {result_code::attempts_exceeded, code_action::none};
        case coded_status::pending: break;
    }
    if (object->expired) return {result_code::expired, code_action::none};
    if (matches) return {result_code::ok, code_action::complete};
    if (object->failed_attempts + 1 >= max_attempts) return {result_code::attempts_exceeded, code_action::lock};
    return {result_code::wrong_code, code_action::count_failure};
}

result_code confirm_code(const std::optional<coded_object>& object, std::string_view code, int max_attempts,
                         const std::function<void()>& complete, const std::function<void(bool lock)>& record_failure) {
    const auto decision = decide_code(object, code, max_attempts);
    switch (decision.action) {
        case code_action::complete: complete(); break;
        case code_action::count_failure: record_failure(false); break;
        case code_action::lock: record_failure(true); break;
        case code_action::none: break;
    }
    return decision.result;
}

}  // namespace keeper::core
