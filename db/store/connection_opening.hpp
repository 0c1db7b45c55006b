#pragma once
// Opening a pooled connection (libpq's connect, then the setup that prepares its statements) on a
// thread of its own, so that the call waiting for it gives up at its deadline (docs/design.md, "One
// deadline per call"). libpq's connect_timeout cannot do this: it counts whole seconds (two at
// least), per host, and hosts are tried in turn; the call's deadline is finer and covers them all.
// An opening given up carries on by itself and closes whatever it opens.
#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include <pqxx/connection>

#include "core/domain/deadline.hpp"
#include "db/store/backend_identity.hpp"

namespace keeper::db {

// Prepares a new connection and returns its server process (kept with the connection, for the
// store to end that process should a call on it end in doubt).
using connection_preparer = std::function<backend_identity(pqxx::connection&)>;

struct opened_connection {
    std::shared_ptr<pqxx::connection> conn;
    backend_identity identity;
};

class connection_opener {
public:
    // At most `openings` connections open at once, those given up included: past it a call fails
    // at once instead of adding a thread (a server that takes this long is most likely gone).
    connection_opener(std::string conninfo, connection_preparer prepare, std::size_t openings);

    // The connection, opened and prepared, or pqxx::broken_connection: the server did not answer,
    // refused, or was not ready before `until`.
    opened_connection open(const core::deadline& until) const;

private:
    std::string m_conninfo;
    connection_preparer m_prepare;
    std::size_t m_openings;
    // Shared with the opening threads, which may outlive the pool.
    std::shared_ptr<std::atomic<std::size_t>> m_running = std::make_shared<std::atomic<std::size_t>>(0);
};

}  // namespace keeper::db
