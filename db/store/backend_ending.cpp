#include "db/store/backend_ending.hpp"

#include "db/store/proc_stat.hpp"
#include "db/store/statements.hpp"

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

namespace keeper::db {
namespace {

constexpr std::string::size_type name_limit = 63;  // NAMEDATALEN - 1: PostgreSQL cuts longer names
constexpr std::string_view name_prefix = "keeper-fcgi ";

std::string host_name() {
    char host[256] = {};
    if (gethostname(host, sizeof host - 1) != 0) return "localhost";
    std::string out;
    for (const char* c = host; *c; ++c) {
        const bool plain = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '.' || *c == '-';
        out += plain ? *c : '_';
    }
    return out;
}


// This boot of this host: the first 12 hex digits of the kernel's boot id. Hosts cloned from one
// image, or containers that share a host name, differ here; a host after a reboot too.
const std::string& boot_tag() {
    static const std::string tag = [] {
        std::ifstream f{"/proc/sys/kernel/random/boot_id"};
        std::string id;
        std::getline(f, id);
        std::string hex;
        for (const char c : id) {
            if (c != '-' && hex.size() < 12) hex += c;
        }
        return hex.empty() ? std::string{"0"} : hex;
    }();
    return tag;
}

// What /proc/<pid>/stat says of a process: its state (the 3rd field) and when it started (clock
// ticks since boot, the 22nd: a pid reused by another process has another start). nullopt when
// there is no such process.
struct process_stat {
    char state = '?';
    std::uint64_t start = 0;
};

std::optional<process_stat> stat_of(long pid) {
    const auto fields = proc_stat_fields(pid);
    if (!fields || fields->size() < 20 || (*fields)[0].empty()) return std::nullopt;
    try {
        return process_stat{(*fields)[0][0], std::stoull((*fields)[19])};
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

// The process still runs what it ran: the same start, not a zombie, and its files still open. A
// process killed closes its files (nginx's connections among them, which is what sends the
// request again) before it becomes a zombie: from then on it commits nothing more either.
bool alive(pid_t pid, std::uint64_t start) {
    const auto stat = stat_of(pid);
    if (!stat || stat->start != start || stat->state == 'Z') return false;
    std::error_code ec;
    const std::filesystem::directory_iterator files{"/proc/" + std::to_string(pid) + "/fd", ec};
    if (ec) return ec == std::errc::permission_denied;  // cannot tell: taken as alive
    return files != std::filesystem::directory_iterator{};
}

// The name of the worker process pid that started at start, on this boot of this host.
std::string name_for(long pid, std::uint64_t start) {
    const std::string head = std::string{name_prefix} + std::to_string(pid) + "." + std::to_string(start) + "@";
    const std::string boot = "~" + boot_tag();
    return head + host_name().substr(0, name_limit - head.size() - boot.size()) + boot;
}

struct named_worker {
    pid_t pid = 0;
    std::uint64_t start = 0;
};

// The worker a session's application_name names, when it is a worker of this boot of this host.
std::optional<named_worker> worker_of_this_host(const std::string& application_name) {
    if (!application_name.starts_with(name_prefix)) return std::nullopt;
    const auto at = application_name.find('@', name_prefix.size());
    const auto dot = application_name.find('.', name_prefix.size());
    if (at == std::string::npos || dot == std::string::npos || dot > at) return std::nullopt;
    named_worker w;
    try {
        w.pid = static_cast<pid_t>(std::stol(application_name.substr(name_prefix.size(), dot - name_prefix.size())));
        w.start = std::stoull(application_name.substr(dot + 1, at - dot - 1));
    } catch (const std::exception&) {
        return std::nullopt;
    }
    return w.pid > 0 && application_name == name_for(w.pid, w.start) ? std::optional{w} : std::nullopt;
}

}  // namespace

std::string worker_application_name_of(long pid) {
    const auto stat = stat_of(pid);
    return name_for(pid, stat ? stat->start : 0);
}

const std::string& worker_application_name() {
    static const std::string name = worker_application_name_of(getpid());
    return name;
}

bool end_backend(pqxx::connection& conn, const backend_identity& backend, const core::deadline& until) {
    if (!backend.known()) return true;  // never opened: nothing ran
    pqxx::nontransaction tx{conn};
    const auto name = [](const auto& s) { return std::string{s.name}; };
    tx.exec_prepared(name(statements::end_backend), backend.pid, backend.started_at);
    while (tx.exec_prepared1(name(statements::backend_running), backend.pid, backend.started_at)[0].as<int>() > 0) {
        if (until.passed()) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds{10});
    }
    return true;
}

bool end_dead_workers_backends(pqxx::connection& conn, const core::deadline& until) {
    std::vector<backend_identity> dead;
    {
        pqxx::nontransaction tx{conn};
        constexpr const auto& s = statements::worker_backends;
        const auto rows = tx.exec_prepared(std::string{s.name}, std::string{name_prefix} + "%");
        for (const auto& row : rows) {
            const auto worker = worker_of_this_host(row[s.column("application_name").data()].as<std::string>());
            if (worker && !alive(worker->pid, worker->start)) {
                dead.push_back({row[s.column("pid").data()].as<int>(), row[s.column("backend_start").data()].as<std::string>()});
            }
        }
    }
    for (const auto& backend : dead) {
        if (!end_backend(conn, backend, until)) return false;
    }
    return true;
}

}  // namespace keeper::db
