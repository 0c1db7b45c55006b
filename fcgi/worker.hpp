#pragma once
// One worker process: `threads` threads, each taking a FastCGI connection and serving the requests
// nginx sends on it (several, with upstream keepalive) until nginx closes it; the calls share a
// pool of `database_connections` PostgreSQL connections.
#include "connection_acceptor.hpp"
#include "core/metrics.hpp"
#include "core/api/settings.hpp"

namespace keeper::fcgi {

// Returns when asked to stop (SIGTERM/SIGINT): accepts no new connection, serves the kept ones
// until nginx closes them or drain_seconds pass, and finishes every request in hand.
int run_worker(listen_sockets sockets, const core::settings& cfg, core::metrics_block& metrics);

}  // namespace keeper::fcgi
