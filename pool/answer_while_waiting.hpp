#pragma once
// While the pool cannot serve yet (it waits for the database schema this build needs, as during an
// upgrade whose migration failed: docs/operations.md, "Restart, reload, upgrade"), every request
// is answered at once instead of hanging until nginx's timeout says "outcome unknown": "not
// applied", 503 with Retry-After, in the request's transport shape (core::refuse_request); a
// request nginx sends again (the retry socket) "outcome unknown", since an earlier pool may have
// run it, unless nginx first passed it on after this process began: then no worker ran it (this
// process has run none yet, and the pool before it had ended: a restart stops one before it starts
// the next), so it is "not applied" too. /health 503 with the reason. One thread, one request at a
// time, no database.
#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>

#include "fcgi/listen_sockets.hpp"

namespace keeper::pool {

// Answers requests on sockets until why_waiting() says nothing (nullopt), asking it again every
// `every`.
void answer_while_waiting(fcgi::listen_sockets sockets, std::size_t body_limit,
                          const std::function<std::optional<std::string>()>& why_waiting,
                          std::chrono::milliseconds every);

}  // namespace keeper::pool
