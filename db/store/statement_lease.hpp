#pragma once
// One statement's hold on a pooled connection, from the pool's acquire to its return, watched by
// the call's deadline (statement_watch.hpp). The lease belongs to it: a connection whose statement
// failed in a way that leaves it unusable, or was interrupted by a cancel or the cut, is closed
// instead of going back to the pool, so that no late cancel can reach the next call's statement.
#include <optional>
#include <string_view>
#include <utility>

#include <pqxx/connection>
#include <pqxx/except>

#include "core/domain/deadline.hpp"
#include "db/store/database_gauges.hpp"
#include "db/store/connection_pool.hpp"
#include "db/store/sql_errors.hpp"
#include "db/store/statement_watch.hpp"

namespace keeper::db {

class statement_lease {
public:
    // Waits for a connection until `until` (connection_pool::wait_expired), opens it if it was not
    // (not_done when no server answers), and watches it: a cancel at cancel_at, the cut at until.
    statement_lease(connection_pool& pool, statement_watch& watch, const core::deadline& cancel_at,
                    const core::deadline& until, database_gauges* gauges);
    ~statement_lease();
    statement_lease(const statement_lease&) = delete;
    statement_lease& operator=(const statement_lease&) = delete;

    // Runs f(connection) and returns what it returns; a libpqxx failure becomes its typed error
    // (sql_errors.hpp), named by `what` in the log.
    template <typename F>
    auto run(std::string_view what, F&& f) -> decltype(f(std::declval<pqxx::connection&>())) {
        try {
            return std::forward<F>(f)(*m_conn);
        } catch (const pqxx::failure& e) {
            connection_after after = connection_after::usable;
            try {
                throw_typed(e, what, m_lease.identity(), after, m_gauges);
            } catch (...) {
                if (after == connection_after::broken) m_lease.mark_broken();
                throw;
            }
        }
    }

    // The statement was still running at its cancel point or its deadline (statement_watch).
    bool interrupted() const { return m_watched->interrupted(); }
    // What the connection's setup read of its server process.
    const backend_identity& backend() const { return m_lease.identity(); }

private:
    connection_pool::lease m_lease;
    pqxx::connection* m_conn;
    database_gauges* m_gauges;
    std::optional<statement_watch::guard> m_watched;
};

}  // namespace keeper::db
