#pragma once
// The pool's GET /metrics: one block in memory the pool's processes share (shared_memory.hpp),
// made by the supervisor before it forks, holding each part's own series: the requests' counters
// (core/pipeline/metrics.hpp), the pool's gauges (pool_gauges.hpp) and its database connections'
// (db/store/database_gauges.hpp); composed here with what each process costs (process_probe.hpp),
// so what any worker renders is the whole pool's.
#include <string>

#include "core/pipeline/metrics.hpp"
#include "db/store/database_gauges.hpp"
#include "pool_gauges.hpp"
#include "process_probe.hpp"

namespace keeper::pool {

struct shared_metrics {
    core::metrics_block requests;
    pool_gauges pool;
    db::database_gauges database;
};

class pool_metrics final : public core::metrics_source {
public:
    explicit pool_metrics(const shared_metrics& shared) : m_shared(shared), m_processes(shared.pool) {}
    std::string text() const override;

private:
    const shared_metrics& m_shared;
    proc_process_probe m_processes;
};

}  // namespace keeper::pool
