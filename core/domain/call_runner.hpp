#pragma once
// Runs one decoded call: its handler with a context naming the call's audit row. Each store
// method the handler calls is a whole transaction of its own (core/domain/store.hpp); anything thrown
// leaves nothing committed by the method that threw.
#include <optional>
#include <string>

#include "core/api/decoded_call.hpp"
#include "core/domain/call_context.hpp"
#include "core/domain/deadline.hpp"
#include "core/api/settings.hpp"
#include "core/domain/store.hpp"

namespace keeper::core {

// What the request adds to a call besides its arguments.
struct call_origin {
    std::string request_id;
    // The caller's key for a write (docs/api-decisions.md, "Idempotency-Key"): the call then runs
    // at most once per key, and a repeat answers the first call's result.
    std::optional<std::string> idempotency_key;
    // nginx sent this request before, to a worker that died with it: a write first settles that
    // attempt (audit_tag::retried).
    bool retried = false;
    deadline until;
    // The W3C trace the call belongs to (core/wire/trace_context.hpp); empty: none.
    std::string trace_id;
    // The client's address as nginx names it (REMOTE_ADDR): what the throttles keyed by a client
    // count under (core/domain/client_block.hpp).
    std::string client_addr;
};

// Throws key_reused when the caller used the key for another call.
call_result run_call(const decoded_call& call, store& st, const settings& cfg, const call_origin& origin);

}  // namespace keeper::core
