#pragma once
// The supervisor: forks N workers on one listening socket, replaces any that dies, and on
// SIGTERM/SIGINT stops them all (each finishes its request first) before it returns.
#include "core/settings.hpp"

namespace keeper::fcgi {

int run_pool(int listen_fd, const core::settings& cfg);

}  // namespace keeper::fcgi
