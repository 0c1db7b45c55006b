#pragma once
// The supervisor: forks N workers on the listening sockets, replaces any that dies, on SIGHUP
// re-reads the configuration and replaces all workers (new ones first, so the socket is always
// served), and on SIGTERM/SIGINT stops them all (each finishes its request first) and returns.
#include <functional>

#include "connection_hub.hpp"
#include "core/pipeline/metrics.hpp"
#include "core/api/settings.hpp"
#include "db/store/calls_in_flight.hpp"

namespace keeper::fcgi {

using settings_loader = std::function<core::settings()>;

// metrics and calls (the host's record of calls in flight) are in shared memory, mapped before
// the first fork, so every worker and every replacement shares them.
int run_pool(listen_sockets sockets, core::settings cfg, const settings_loader& reload, core::metrics_block& metrics,
             db::calls_in_flight& calls);

}  // namespace keeper::fcgi
