#include "process_probe.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

#include "db/store/proc_stat.hpp"

namespace keeper::pool {
namespace {

// When the machine booted, seconds since the epoch (/proc/stat's btime).
double boot_time() {
    std::ifstream in{"/proc/stat"};
    for (std::string word; in >> word;) {
        if (word == "btime") {
            double t = 0;
            in >> t;
            return t;
        }
    }
    return 0;
}

std::int64_t open_fds(const std::string& dir) {
    std::error_code ec;
    std::int64_t n = 0;
    for (std::filesystem::directory_iterator it{dir + "/fd", ec}, end; !ec && it != end; it.increment(ec)) ++n;
    return n;
}

// The soft limit of "Max open files" in /proc/<pid>/limits.
std::int64_t max_fds(const std::string& dir) {
    std::ifstream in{dir + "/limits"};
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("Max open files", 0) != 0) continue;
        std::istringstream fields{line.substr(std::string_view{"Max open files"}.size())};
        std::int64_t soft = 0;
        fields >> soft;
        return soft;
    }
    return 0;
}

// utime (field 14), stime 15, starttime 22, vsize 23, rss 24 of /proc/<pid>/stat (proc(5)).
std::optional<process_sample> read_process(int pid, std::optional<std::size_t> slot, double booted) {
    const std::string dir = "/proc/" + std::to_string(pid);
    const auto fields = db::proc_stat_fields(pid);
    if (!fields || fields->size() < 22) return std::nullopt;
    const auto& f = *fields;
    static const double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
    static const std::int64_t page = sysconf(_SC_PAGESIZE);
    process_sample s;
    s.worker_slot = slot;
    s.cpu_seconds = (std::stod(f[11]) + std::stod(f[12])) / ticks;
    s.start_time_seconds = booted + std::stod(f[19]) / ticks;
    s.virtual_bytes = std::stoll(f[20]);
    s.resident_bytes = std::stoll(f[21]) * page;
    s.open_fds = open_fds(dir);
    s.max_fds = max_fds(dir);
    return s;
}

}  // namespace

std::vector<process_sample> proc_process_probe::sample() const {
    static const double booted = boot_time();
    std::vector<process_sample> out;
    for (std::size_t slot = 0; slot < pool_gauges::process_slots; ++slot) {
        const int pid = m_gauges.process_ids[slot].load(std::memory_order_relaxed);
        if (pid == 0) continue;
        try {
            if (auto s = read_process(pid, slot == 0 ? std::nullopt : std::optional{slot - 1}, booted))
                out.push_back(*s);
        } catch (const std::exception&) {
            // gone, or cut short as it exited: left out of this scrape
        }
    }
    return out;
}

void record_supervisor(pool_gauges& gauges, int pid) { gauges.process_ids[0].store(pid, std::memory_order_relaxed); }

void record_worker(pool_gauges& gauges, int pid) {
    for (std::size_t slot = 1; slot < pool_gauges::process_slots; ++slot) {
        std::int32_t free = 0;
        if (gauges.process_ids[slot].compare_exchange_strong(free, pid, std::memory_order_relaxed)) return;
    }
}

void forget_worker(pool_gauges& gauges, int pid) {
    for (std::size_t slot = 1; slot < pool_gauges::process_slots; ++slot) {
        std::int32_t was = pid;
        if (gauges.process_ids[slot].compare_exchange_strong(was, 0, std::memory_order_relaxed)) return;
    }
}

}  // namespace keeper::pool
