#include "shared_metrics.hpp"

#include <sys/mman.h>

#include <new>
#include <stdexcept>

namespace keeper::fcgi {

shared_metrics::shared_metrics() {
    void* memory =
        mmap(nullptr, sizeof(core::metrics_block), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED) throw std::runtime_error("cannot map shared memory for metrics");
    m_block = new (memory) core::metrics_block{};
}

shared_metrics::~shared_metrics() {
    m_block->~metrics_block();
    munmap(m_block, sizeof(core::metrics_block));
}

}  // namespace keeper::fcgi
