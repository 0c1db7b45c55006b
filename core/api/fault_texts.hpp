#pragma once
// The sentences a client reads when a call did not run, or when its outcome is unknown, and the
// other answers nginx gives in keeper's place. keeper's own faults and nginx's pages
// (nginx/keeper-errors.conf, generated from these by core/pages/nginx_errors.cpp) say the same
// words, so a client that reads one kind of answer reads the other alike (docs/api-decisions.md,
// "Errors").
#include <cstddef>
#include <string>
#include <string_view>

namespace keeper::core {

// Why a call was not applied: it never started, or rolled back. Each one may be repeated. (The
// sentences are by value, in fault_texts.cpp: add a value last.)
enum class not_run_because {
    busy,         // keeper: no thread would have been free in time
    not_ready,    // keeper: starting, or waiting for a migration or a configuration fix
    out_of_time,  // keeper: the call's deadline passed before it could commit
    unavailable,  // nginx: nothing of the request reached a worker
};

// Why nothing says whether a call was applied. Each may have been.
enum class unknown_because {
    unconfirmed,  // keeper: the commit's fate, or the standby's copy of it, is not known
    failed,       // nginx: the worker's answer never came (it died, the connection broke)
    timed_out,    // nginx: no answer within its read timeout
};

// "The call was not applied (request id X): <why>. Nothing was changed; it may be repeated after
// Retry-After." Every answer that says it carries Retry-After.
std::string not_applied_text(std::string_view request_id, not_run_because why);
// "<why> (request id X): it may or may not have been applied. Repeat it only with the same
// Idempotency-Key, or check it at /call-outcome ..."
std::string outcome_unknown_text(std::string_view request_id, unknown_because why);
// /call-outcome itself could not be answered (nginx): a read, so "ask again".
std::string outcome_unreadable_text(std::string_view request_id);
std::string body_too_large_text(std::size_t limit);
// An Idempotency-Key already used with other parameters (422), or whose call still runs (409).
inline constexpr std::string_view key_reused_text =
    "This Idempotency-Key was already used for a call with other parameters or another operation; a new call "
    "needs a new key.";
inline constexpr std::string_view key_in_flight_text =
    "A call with this Idempotency-Key is still running, or waited too long for a lock; nothing was changed. Repeat "
    "it with the same key.";
// A server fault that keeper cannot say more of: what failed is in the log under the request id.
std::string server_fault_text(std::string_view request_id);
// A path that names no endpoint group (404), keeper's and nginx's (an .asmx name that is not one).
inline constexpr std::string_view no_service_text = "No service here.";
// nginx's limit on the calls that test a credential, per client address (keeper-limits.conf).
inline constexpr std::string_view too_many_requests_text = "Too many requests from this address; try again later.";

}  // namespace keeper::core
