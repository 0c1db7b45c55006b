#pragma once
// The metrics block in anonymous shared memory: mapped by the supervisor before it forks, so
// every worker (and every replacement worker) adds to the same counters.
#include "core/pipeline/metrics.hpp"

namespace keeper::fcgi {

class shared_metrics {
public:
    shared_metrics();
    ~shared_metrics();
    shared_metrics(const shared_metrics&) = delete;
    shared_metrics& operator=(const shared_metrics&) = delete;

    core::metrics_block& block() { return *m_block; }

private:
    core::metrics_block* m_block;  // not owning in the C++ sense: the mapping is released in the destructor
};

}  // namespace keeper::fcgi
