#pragma once
// One single-threaded worker process: accept a FastCGI request, handle it, answer, log, repeat.
#include "core/metrics.hpp"
#include "core/settings.hpp"

namespace keeper::fcgi {

// Returns when asked to stop (SIGTERM/SIGINT), after finishing the request in hand.
int run_worker(int listen_fd, const core::settings& cfg, core::metrics_block& metrics);

}  // namespace keeper::fcgi
