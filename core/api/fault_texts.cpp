#include "core/api/fault_texts.hpp"

#include <iterator>

namespace keeper::core {
namespace {

// By the enums' values (fault_texts.hpp).
constexpr std::string_view not_run_reasons[] = {
    "the service is busy",
    "the service is not ready yet",
    "the service could not do it in time",
    "the service is unavailable",
};
constexpr std::string_view unknown_reasons[] = {
    "The outcome of the call is unknown",
    "The service failed before it answered, so the outcome of the call is unknown",
    "The service did not answer in time, so the outcome of the call is unknown",
};
static_assert(std::size(not_run_reasons) == static_cast<std::size_t>(not_run_because::unavailable) + 1);
static_assert(std::size(unknown_reasons) == static_cast<std::size_t>(unknown_because::timed_out) + 1);

}  // namespace

std::string not_applied_text(std::string_view request_id, not_run_because why) {
    return "The call was not applied (request id " + std::string{request_id} +
           "): " + std::string{not_run_reasons[static_cast<std::size_t>(why)]} +
           ". Nothing was changed; it may be repeated after Retry-After.";
}

std::string outcome_unknown_text(std::string_view request_id, unknown_because why) {
    return std::string{unknown_reasons[static_cast<std::size_t>(why)]} + " (request id " + std::string{request_id} +
           "): it may or may not have been applied. Repeat it only with the same Idempotency-Key, or check it at "
           "/call-outcome with this request id before repeating it.";
}

std::string outcome_unreadable_text(std::string_view request_id) {
    return "The outcome of the call cannot be read now (request id " + std::string{request_id} +
           "); ask again after Retry-After.";
}

std::string server_fault_text(std::string_view request_id) {
    return "Server was unable to process request (request id " + std::string{request_id} + ").";
}

std::string body_too_large_text(std::size_t limit) {
    return "The request body is larger than " + std::to_string(limit) + " bytes.";
}

}  // namespace keeper::core
