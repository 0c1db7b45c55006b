#pragma once
// Runs one decoded call: its handler with a context that holds the call's frame. Each store
// method the handler calls is a whole transaction of its own (core/domain/store.hpp); anything thrown
// leaves nothing committed by the method that threw.
#include "core/api/decoded_call.hpp"
#include "core/domain/call_context.hpp"
#include "core/api/settings.hpp"
#include "core/domain/store.hpp"

namespace keeper::core {

// Runs the call's handler with its frame (built by the router). A call whose deadline passed before
// a worker took it runs nothing (not_applied). Throws key_reused when the caller used the key for
// another call.
call_result run_call(const decoded_call& call, store& st, const settings& cfg, const call_frame& frame);

}  // namespace keeper::core
