#pragma once
// The supervisor: forks N workers on the listening sockets, replaces any that dies, on SIGHUP
// re-reads the configuration and replaces all workers (new ones first, so the socket is always
// served), and on SIGTERM/SIGINT stops them all (each finishes its request first) and returns.
#include <functional>

#include "fcgi/connection_hub.hpp"
#include "core/api/settings.hpp"
#include "worker.hpp"

namespace keeper::pool {

using settings_loader = std::function<core::settings()>;

int run_pool(fcgi::listen_sockets sockets, core::settings cfg, const settings_loader& reload, pool_memory shared);

}  // namespace keeper::pool
