#pragma once
// GET /call-outcome?sessionId=…&requestId=… (or the same as a form POST): a caller's look at one
// of its own calls by the request id keeper gave it, so that the advice of an outcome-unknown
// answer, "check before repeating", can be followed by any client, keyed or not
// (docs/api-decisions.md, "Checking a call's outcome"). Answered in JSON:
//   {"requestId":…,"session":0,"outcome":"recorded","result":N,"at":"…Z"}  the call ran, answered N
//   {"requestId":…,"session":0,"outcome":"none"}       it never ran, and never will
//   {"requestId":…,"session":0,"outcome":"pending","retryAfter":S}  an attempt may still commit
//   {"requestId":…,"session":2|3}                      the session is unknown or expired
// A call is the session's login's, whichever session made it.
#include <chrono>
#include <optional>
#include <string_view>

#include "core/api/date_time.hpp"
#include "core/api/http_message.hpp"
#include "core/api/request_id.hpp"
#include "core/api/settings.hpp"
#include "core/domain/deadline.hpp"
#include "core/domain/store.hpp"
#include "core/pipeline/request_log.hpp"

namespace keeper::core {

bool is_call_outcome(std::string_view path);

// Throws a client fault for a missing or malformed parameter, method_not_allowed for a method
// other than GET or POST.
http_response answer_call_outcome(const http_request& req, store& st, const settings& cfg, const deadline& until,
                                  request_log& log);

}  // namespace keeper::core
