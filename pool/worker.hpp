#pragma once
// One worker process: a hub thread holding its FastCGI connections (connection_hub.hpp), `threads`
// threads serving the requests that arrive on them in turn (fcgi/admission.hpp), a refuser answering
// the ones refused on arrival; the calls share a pool of `database_connections` PostgreSQL
// connections.
#include "calls_in_flight.hpp"
#include "fcgi/connection_hub.hpp"
#include "core/api/settings.hpp"
#include "pool_metrics.hpp"
#include "refused_clients.hpp"

namespace keeper::pool {

// What the pool's processes share, mapped by the supervisor before its first fork
// (pool/shared_memory.hpp), so every worker and every replacement sees the same objects.
struct pool_memory {
    shared_metrics& metrics;   // every part's series for /metrics
    calls_in_flight& calls;    // the host's record of the write calls in flight
    refused_clients& refused;  // the clients refused lately, by their connections
};

// Returns when asked to stop (SIGTERM/SIGINT): accepts no new connection, serves the kept ones
// until nginx closes them or drain_seconds pass, and finishes every request in hand.
int run_worker(fcgi::listen_sockets sockets, const core::settings& cfg, pool_memory shared);

}  // namespace keeper::pool
