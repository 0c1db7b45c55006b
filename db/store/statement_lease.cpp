#include "db/store/statement_lease.hpp"

namespace keeper::db {
namespace {

pqxx::connection& opened(connection_pool::lease& lease, const core::deadline& until) {
    try {
        return lease.connection(until);
    } catch (const pqxx::failure&) {
        lease.mark_broken();
        throw not_done("cannot connect to the database");
    }
}

}  // namespace

statement_lease::statement_lease(connection_pool& pool, statement_watch& watch, const core::deadline& cancel_at,
                                 const core::deadline& until, database_gauges* gauges)
    : m_lease(pool.acquire(until)), m_conn(&opened(m_lease, until)), m_gauges(gauges) {
    m_watched.emplace(watch, m_lease.shared(), cancel_at, until);
}

statement_lease::~statement_lease() {
    if (m_watched->finish()) m_lease.mark_broken();
}

}  // namespace keeper::db
