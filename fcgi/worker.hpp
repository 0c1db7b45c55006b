#pragma once
// One worker process: a hub thread holding its FastCGI connections (connection_hub.hpp), `threads`
// threads serving the requests that arrive on them in turn (fcgi/admission.hpp), a refuser answering
// the ones refused on arrival; the calls share a pool of `database_connections` PostgreSQL
// connections.
#include "connection_hub.hpp"
#include "core/pipeline/metrics.hpp"
#include "core/api/settings.hpp"

namespace keeper::fcgi {

// Returns when asked to stop (SIGTERM/SIGINT): accepts no new connection, serves the kept ones
// until nginx closes them or drain_seconds pass, and finishes every request in hand.
int run_worker(listen_sockets sockets, const core::settings& cfg, core::metrics_block& metrics);

}  // namespace keeper::fcgi
