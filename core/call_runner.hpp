#pragma once
// Runs one decoded call: the handler, then — if it used the database — its audit row and the
// commit, all in the one transaction. Anything thrown leaves the transaction rolled back.
#include <string>

#include "decoded_call.hpp"
#include "settings.hpp"
#include "store.hpp"

namespace keeper::core {

result_value run_call(const decoded_call& call, store& st, const settings& cfg, const std::string& request_id);

}  // namespace keeper::core
