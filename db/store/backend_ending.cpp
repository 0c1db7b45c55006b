#include "db/store/backend_ending.hpp"

#include "db/store/proc_stat.hpp"
#include "db/store/statements.hpp"

#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <thread>
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
        const bool plain =
            (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '.' || *c == '-';
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

// When the process started, in clock ticks since boot (the 22nd field of /proc/<pid>/stat): a pid
// reused by another process has another start. 0 when there is no such process.
std::uint64_t start_of(long pid) {
    const auto fields = proc_stat_fields(pid);
    if (!fields || fields->size() < 20) return 0;
    try {
        return std::stoull((*fields)[19]);
    } catch (const std::exception&) {
        return 0;
    }
}

// The name of the worker process pid that started at start, on this boot of this host.
std::string name_for(long pid, std::uint64_t start) {
    const std::string head = std::string{name_prefix} + std::to_string(pid) + "." + std::to_string(start) + "@";
    const std::string boot = "~" + boot_tag();
    return head + host_name().substr(0, name_limit - head.size() - boot.size()) + boot;
}

}  // namespace

std::string worker_application_name_of(long pid) { return name_for(pid, start_of(pid)); }

bool left_by_dead_worker(std::string_view application_name) {
    // "keeper-fcgi <pid>.<start>@…": this host's and boot's only if this host names that process so.
    if (!application_name.starts_with(name_prefix)) return false;
    const auto rest = application_name.substr(name_prefix.size());
    const auto dot = rest.find('.');
    const auto at = rest.find('@');
    if (dot == std::string_view::npos || at == std::string_view::npos || dot > at) return false;
    long pid = 0;
    std::uint64_t start = 0;
    try {
        pid = std::stol(std::string{rest.substr(0, dot)});
        start = std::stoull(std::string{rest.substr(dot + 1, at - dot - 1)});
    } catch (const std::exception&) {
        return false;
    }
    if (pid <= 0 || name_for(pid, start) != application_name) return false;
    return start_of(pid) != start;
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

void list_as_retried(pqxx::connection& conn, std::string_view request_id) {
    pqxx::nontransaction{conn}.exec_prepared(std::string{statements::mark_retried.name}, std::string{request_id});
}

// Ends the server process of each row of statement S (its pid and backend_start) that `chosen`
// picks, each waited for until gone; false at the deadline.
template <const auto& S, typename Choose>
bool end_each(pqxx::connection& conn, const pqxx::result& rows, const core::deadline& until, Choose chosen) {
    for (const auto& row : rows) {
        if (!chosen(row)) continue;
        const backend_identity backend{row[S.column("pid").data()].template as<int>(),
                                       row[S.column("backend_start").data()].template as<std::string>()};
        if (!end_backend(conn, backend, until)) return false;
    }
    return true;
}

bool end_left_by_dead_workers(pqxx::connection& conn, const core::deadline& until) {
    constexpr const auto& s = statements::worker_backends;
    const auto rows = pqxx::nontransaction{conn}.exec_prepared(std::string{s.name});
    return end_each<s>(conn, rows, until, [&](const pqxx::row& row) {
        return left_by_dead_worker(row[s.column("application_name").data()].as<std::string>());
    });
}

bool end_claim_holder(pqxx::connection& conn, std::string_view request_id, const core::deadline& until) {
    constexpr const auto& s = statements::claim_holders;
    const auto rows = pqxx::nontransaction{conn}.exec_prepared(std::string{s.name}, std::string{request_id});
    return end_each<s>(conn, rows, until, [](const pqxx::row&) { return true; });
}

}  // namespace keeper::db
