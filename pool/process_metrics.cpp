#include "process_metrics.hpp"

#include <cstdio>

namespace keeper::pool {
namespace {

struct series {
    const char* name;
    const char* type;
    const char* help;
    double (*value)(const process_sample&);
};

const series all_series[] = {
    {"process_cpu_seconds_total", "counter", "User and system CPU time spent, in seconds.",
     [](const process_sample& p) { return p.cpu_seconds; }},
    {"process_resident_memory_bytes", "gauge", "Resident memory size in bytes.",
     [](const process_sample& p) { return static_cast<double>(p.resident_bytes); }},
    {"process_virtual_memory_bytes", "gauge", "Virtual memory size in bytes.",
     [](const process_sample& p) { return static_cast<double>(p.virtual_bytes); }},
    {"process_open_fds", "gauge", "Open file descriptors.",
     [](const process_sample& p) { return static_cast<double>(p.open_fds); }},
    {"process_max_fds", "gauge", "The most file descriptors the process may open.",
     [](const process_sample& p) { return static_cast<double>(p.max_fds); }},
    {"process_start_time_seconds", "gauge", "When the process started, seconds since the epoch.",
     [](const process_sample& p) { return p.start_time_seconds; }},
};

std::string labels(const process_sample& p) {
    if (!p.worker_slot) return "{process=\"supervisor\"}";
    return "{process=\"worker\",slot=\"" + std::to_string(*p.worker_slot) + "\"}";
}

std::string number(double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%.17g", v);
    return text;
}

}  // namespace

std::string format_process_metrics(std::span<const process_sample> processes) {
    std::string out;
    if (processes.empty()) return out;
    for (const auto& s : all_series) {
        out += std::string{"# HELP "} + s.name + " " + s.help + "\n# TYPE " + s.name + " " + s.type + "\n";
        for (const auto& p : processes) out += s.name + labels(p) + " " + number(s.value(p)) + "\n";
    }
    return out;
}

}  // namespace keeper::pool
