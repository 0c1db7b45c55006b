#pragma once
// keeper's request id (nginx/keeper-request-id.conf): 13 digits of the milliseconds since 1970 when
// nginx first saw the call, then 19 lower-case hex digits. Its time is where the call's deadline
// counts from, in the worker and in the database (docs/design.md, "One deadline per call").
#include <optional>
#include <string_view>

#include "core/api/date_time.hpp"

namespace keeper::core {

// The id's time; nullopt for an id of another shape, or dated past what utc_time holds (2262).
std::optional<utc_time> request_id_time(std::string_view request_id);

}  // namespace keeper::core
