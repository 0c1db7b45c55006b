#pragma once
// What each process of the pool costs, read from /proc for /metrics' process_* series
// (core/pipeline/process_metrics.hpp): the supervisor and the workers it recorded in the shared block's
// process table (worker_pool.cpp). A process gone between the table and the read is left out.
#include <vector>

#include "core/pipeline/metrics.hpp"
#include "core/pipeline/process_metrics.hpp"

namespace keeper::fcgi {

class proc_process_probe final : public core::process_probe {
public:
    explicit proc_process_probe(const core::runtime_gauges& gauges) : m_gauges(gauges) {}
    std::vector<core::process_sample> sample() const override;

private:
    const core::runtime_gauges& m_gauges;
};

// The supervisor's side of the process table: slot 0 is the supervisor; a worker takes the first
// free slot when it is forked and gives it back when it is reaped.
void record_supervisor(core::runtime_gauges& gauges, int pid);
void record_worker(core::runtime_gauges& gauges, int pid);
void forget_worker(core::runtime_gauges& gauges, int pid);

}  // namespace keeper::fcgi
