#pragma once
// One worker process: a hub thread holding its FastCGI connections (connection_hub.hpp), `threads`
// threads serving the requests that arrive on them in turn (fcgi/admission.hpp), a refuser answering
// the ones refused on arrival; the calls share a pool of `database_connections` PostgreSQL
// connections.
#include "connection_hub.hpp"
#include "core/pipeline/metrics.hpp"
#include "core/api/settings.hpp"
#include "db/store/calls_in_flight.hpp"

namespace keeper::fcgi {

// Returns when asked to stop (SIGTERM/SIGINT): accepts no new connection, serves the kept ones
// until nginx closes them or drain_seconds pass, and finishes every request in hand. metrics and
// calls are the pool's, in shared memory.
int run_worker(listen_sockets sockets, const core::settings& cfg, core::metrics_block& metrics,
               db::calls_in_flight& calls);

}  // namespace keeper::fcgi
