#pragma once
// The standard process_* series of every Prometheus client library, for each process of the pool
// (the supervisor and each worker, by slot), so dashboards that expect them find them. A worker
// renders /metrics for the whole pool from shared memory; what each process costs comes from the
// operating system (process_probe.hpp reads /proc), this file only writes it out.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace keeper::pool {

struct process_sample {
    std::optional<std::size_t> worker_slot;  // none: the supervisor
    double cpu_seconds = 0;                  // user and system
    std::int64_t resident_bytes = 0;
    std::int64_t virtual_bytes = 0;
    std::int64_t open_fds = 0;
    std::int64_t max_fds = 0;
    double start_time_seconds = 0;  // since the epoch
};

// process_cpu_seconds_total, process_resident_memory_bytes, process_virtual_memory_bytes,
// process_open_fds, process_max_fds, process_start_time_seconds; labelled
// process="supervisor", or process="worker" with its slot.
std::string format_process_metrics(std::span<const process_sample> processes);

}  // namespace keeper::pool
