#include "pool_metrics.hpp"

namespace keeper::pool {

std::string pool_metrics::text() const {
    auto out = core::format_metrics(m_shared.requests);
    out += format_pool_gauges(m_shared.pool);
    out += db::format_database_gauges(m_shared.database);
    out += format_process_metrics(m_processes.sample());
    return out;
}

}  // namespace keeper::pool
