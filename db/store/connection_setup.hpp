#pragma once
// What every new connection of a worker's pool runs before its first call: the call bounds, the
// worker's name, and every statement of statements.hpp prepared.
#include "db/store/call_executor.hpp"
#include "db/store/connection_pool.hpp"

namespace keeper::db {

// Returns the connection's server process: its pid and start time, which name it uniquely on
// its server (a pid alone may be reused).
connection_pool::preparer connection_setup(database_timeouts bounds);

}  // namespace keeper::db
