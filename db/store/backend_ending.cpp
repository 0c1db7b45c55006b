#include "db/store/backend_ending.hpp"

#include "db/store/statements.hpp"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
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


// A process that is gone or a zombie (killed, not yet reaped by the pool) runs nothing more.
bool alive(pid_t pid) {
    if (kill(pid, 0) != 0 && errno == ESRCH) return false;
    std::ifstream stat{"/proc/" + std::to_string(pid) + "/stat"};
    std::string line;
    if (!std::getline(stat, line)) return false;
    const auto paren = line.rfind(')');  // the command name may hold spaces and parentheses
    return paren == std::string::npos || paren + 2 >= line.size() || line[paren + 2] != 'Z';
}

// The worker pid a session's application_name names, when it is a worker of this host; else 0.
pid_t worker_of_this_host(const std::string& application_name) {
    if (!application_name.starts_with(name_prefix)) return 0;
    const auto at = application_name.find('@', name_prefix.size());
    if (at == std::string::npos) return 0;
    pid_t pid = 0;
    try {
        pid = static_cast<pid_t>(std::stol(application_name.substr(name_prefix.size(), at - name_prefix.size())));
    } catch (const std::exception&) {
        return 0;
    }
    return pid > 0 && application_name == worker_application_name_of(pid) ? pid : 0;
}

}  // namespace

std::string worker_application_name_of(long pid) {
    return (std::string{name_prefix} + std::to_string(pid) + "@" + host_name()).substr(0, name_limit);
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
            const pid_t worker = worker_of_this_host(row[s.column("application_name").data()].as<std::string>());
            if (worker > 0 && !alive(worker)) {
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
