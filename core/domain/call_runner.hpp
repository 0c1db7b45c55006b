#pragma once
// Runs one decoded call: its handler with a context naming the call's audit row. Each store
// method the handler calls is a whole transaction of its own (core/store.hpp); anything thrown
// leaves nothing committed by the method that threw.
#include <string>

#include "core/api/decoded_call.hpp"
#include "core/domain/call_context.hpp"
#include "core/api/settings.hpp"
#include "core/domain/store.hpp"

namespace keeper::core {

result_value run_call(const decoded_call& call, store& st, const settings& cfg, const std::string& request_id);

}  // namespace keeper::core
