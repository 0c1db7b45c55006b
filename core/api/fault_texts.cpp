#include "core/api/fault_texts.hpp"

namespace keeper::core {
namespace {

std::string_view not_run_reason(not_run_because why) {
    switch (why) {
        case not_run_because::busy:
            return "the service is busy";
        case not_run_because::not_ready:
            return "the service is not ready yet";
        case not_run_because::out_of_time:
            return "the service could not do it in time";
        case not_run_because::unavailable:
            return "the service is unavailable";
    }
    return "the service is unavailable";
}

std::string_view unknown_reason(unknown_because why) {
    switch (why) {
        case unknown_because::unconfirmed:
            return "The outcome of the call is unknown";
        case unknown_because::failed:
            return "The service failed before it answered, so the outcome of the call is unknown";
        case unknown_because::timed_out:
            return "The service did not answer in time, so the outcome of the call is unknown";
    }
    return "The outcome of the call is unknown";
}

}  // namespace

std::string not_applied_text(std::string_view request_id, not_run_because why) {
    return "The call was not applied (request id " + std::string{request_id} +
           "): " + std::string{not_run_reason(why)} + ". Nothing was changed; it may be repeated after Retry-After.";
}

std::string outcome_unknown_text(std::string_view request_id, unknown_because why) {
    return std::string{unknown_reason(why)} + " (request id " + std::string{request_id} +
           "): it may or may not have been applied. Repeat it only with the same Idempotency-Key, or check it at "
           "/call-outcome with this request id before repeating it.";
}

std::string outcome_unreadable_text(std::string_view request_id) {
    return "The outcome of the call cannot be read now (request id " + std::string{request_id} +
           "); ask again after Retry-After.";
}

std::string body_too_large_text(std::size_t limit) {
    return "The request body is larger than " + std::to_string(limit) + " bytes.";
}

}  // namespace keeper::core
