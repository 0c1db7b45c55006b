#pragma once
// The rule FinishCodeProtectedOperation and TelepaySchedulerConfirmCreate share (SPEC.md §5):
// right code → done; wrong code → 6, and the code_max_attempts-th wrong one locks for good (7);
// locked → 7; past expiry → 12; repeating the successful call → 0; done and another code → 8.
#include <functional>
#include <optional>
#include <string_view>

#include "../result_code.hpp"
#include "../store.hpp"

namespace keeper::core {

enum class code_action { none, complete, count_failure, lock };

struct code_decision {
    result_code result;
    code_action action;
};

code_decision decide_code(const std::optional<coded_object>& object, std::string_view code, int max_attempts);

// Decides, then carries out the decision through the object's own store calls.
result_code confirm_code(const std::optional<coded_object>& object, std::string_view code, int max_attempts,
                         const std::function<void()>& complete, const std::function<void(bool lock)>& record_failure);

}  // namespace keeper::core
