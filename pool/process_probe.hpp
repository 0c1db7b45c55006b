#pragma once
// What each process of the pool costs, read from /proc for /metrics' process_* series
// (process_metrics.hpp): the supervisor and the workers it recorded in the shared block's
// process table (worker_pool.cpp). A process gone between the table and the read is left out.
#include <vector>

#include "pool_gauges.hpp"
#include "process_metrics.hpp"

namespace keeper::pool {

class proc_process_probe {
public:
    explicit proc_process_probe(const pool_gauges& gauges) : m_gauges(gauges) {}
    std::vector<process_sample> sample() const;

private:
    const pool_gauges& m_gauges;
};

// The supervisor's side of the process table: slot 0 is the supervisor; a worker takes the first
// free slot when it is forked and gives it back when it is reaped.
void record_supervisor(pool_gauges& gauges, int pid);
void record_worker(pool_gauges& gauges, int pid);
void forget_worker(pool_gauges& gauges, int pid);

}  // namespace keeper::pool
