#include "worker_pool.hpp"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <map>
#include <memory>
#include <thread>

#include "log_ring.hpp"
#include "log_writer.hpp"
#include "process_probe.hpp"
#include "worker.hpp"

namespace keeper::pool {
namespace {

using clock = std::chrono::steady_clock;

// How often the supervisor writes out the workers' log records.
constexpr auto log_interval = std::chrono::milliseconds{20};

struct worker_process {
    clock::time_point started;
    std::unique_ptr<shared_log_ring> log;
};
using worker_set = std::map<pid_t, worker_process>;

// The supervisor's state. Signals are not handled asynchronously: they are blocked and taken one
// at a time by sigtimedwait in the loop, between log write-outs.
struct pool {
    fcgi::listen_sockets sockets;
    core::settings cfg;
    const settings_loader& loader;
    pool_memory shared;
    worker_set workers;   // serving with the current configuration
    worker_set retiring;  // asked to stop (reload), still draining
    bool stopping = false;
};

[[noreturn]] void become_worker(pool& p, log_ring& log, pid_t supervisor) {
    // A worker leaves (gracefully) when its supervisor dies, so a restarted service never finds
    // an orphaned pool serving its socket.
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != supervisor) _exit(0);
    signal(SIGHUP, SIG_IGN);  // reloads are the supervisor's business
    use_log_ring(log);
    int rc = 1;
    try {
        rc = run_worker(p.sockets, p.cfg, p.shared);  // takes SIGTERM/SIGINT itself (still blocked)
    } catch (const std::exception& e) {
        log_event("worker", std::to_string(getpid()) + ": " + e.what());
    }
    _exit(rc);
}

void spawn_worker(pool& p, worker_set& into) {
    auto log = std::make_unique<shared_log_ring>("the log");
    const pid_t supervisor = getpid();
    const pid_t pid = fork();
    if (pid == 0) become_worker(p, log->get(), supervisor);
    if (pid < 0) {
        log_event("pool", std::string{"fork failed: "} + std::strerror(errno));
        return;
    }
    into[pid] = {clock::now(), std::move(log)};
    p.shared.metrics.pool.workers_alive.fetch_add(1, std::memory_order_relaxed);
    record_worker(p.shared.metrics.pool, pid);
}

// What /metrics says the configuration asks for.
void publish_configuration(pool& p) {
    p.shared.metrics.pool.workers_configured.store(p.cfg.workers, std::memory_order_relaxed);
    p.shared.metrics.pool.threads_per_worker.store(p.cfg.threads, std::memory_order_relaxed);
}

void spawn_workers(pool& p, worker_set& into) {
    for (int i = 0; i < p.cfg.workers; ++i) spawn_worker(p, into);
}

void write_out_logs(pool& p) {
    for (auto* set : {&p.workers, &p.retiring}) {
        for (auto& [pid, w] : *set) w.log->get().drain(STDERR_FILENO);
    }
}

std::string describe_exit(int status) {
    if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
    if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
    return "stopped";
}

// New workers with the new configuration are accepting before the old ones are asked to stop;
// the old ones serve what nginx still sends on their connections, then leave (worker.hpp).
void reload(pool& p) {
    try {
        auto fresh = p.loader();
        if (fresh.listen != p.cfg.listen) log_event("pool", "'listen' changes only on restart");
        p.cfg = std::move(fresh);
    } catch (const std::exception& e) {
        log_event("pool", std::string{"reload refused, keeping the running configuration: "} + e.what());
        return;
    }
    use_log_format(p.cfg.log_format);
    publish_configuration(p);
    worker_set fresh;
    spawn_workers(p, fresh);
    for (auto& [pid, w] : p.workers) {
        kill(pid, SIGTERM);
        p.retiring[pid] = std::move(w);
    }
    p.workers = std::move(fresh);
    log_event("pool", "configuration reloaded; " + std::to_string(p.workers.size()) + " workers started");
}

// A worker has exited: write out what it logged, and replace it unless it was meant to go.
void reap(pool& p, pid_t pid, int status) {
    for (auto* set : {&p.retiring, &p.workers}) {
        const auto it = set->find(pid);
        if (it == set->end()) continue;
        it->second.log->get().drain(STDERR_FILENO);
        const auto started = it->second.started;
        set->erase(it);
        p.shared.metrics.pool.workers_alive.fetch_sub(1, std::memory_order_relaxed);
        forget_worker(p.shared.metrics.pool, pid);
        if (set == &p.retiring || p.stopping) return;
        p.shared.metrics.pool.worker_replacements[WIFSIGNALED(status) ? 0 : 1].fetch_add(1, std::memory_order_relaxed);
        log_event("pool", "worker " + std::to_string(pid) + " " + describe_exit(status) + "; replacing it");
        // A worker that dies at once (bad config, broken library) must not make us spin.
        if (clock::now() - started < std::chrono::seconds{1}) std::this_thread::sleep_for(std::chrono::seconds{1});
        spawn_worker(p, p.workers);
        return;
    }
}

void reap_exited(pool& p) {
    int status = 0;
    for (pid_t pid; (pid = waitpid(-1, &status, WNOHANG)) > 0;) reap(p, pid, status);
}

void begin_stop(pool& p) {
    p.stopping = true;
    log_event("pool", "stopping " + std::to_string(p.workers.size()) + " workers");
    for (const auto& [pid, w] : p.workers) kill(pid, SIGTERM);
}

sigset_t pool_signals() {
    sigset_t set;
    sigemptyset(&set);
    for (int s : {SIGCHLD, SIGHUP, SIGTERM, SIGINT}) sigaddset(&set, s);
    return set;
}

}  // namespace

int run_pool(fcgi::listen_sockets sockets, core::settings cfg, const settings_loader& loader, pool_memory shared) {
    const sigset_t signals = pool_signals();
    sigprocmask(SIG_BLOCK, &signals, nullptr);  // workers inherit it: they sigwait for their stop
    pool p{sockets, std::move(cfg), loader, shared, {}, {}, false};
    auto& metrics = shared.metrics;
    metrics.pool.start_time_seconds.store(
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count());
    publish_configuration(p);
    record_supervisor(metrics.pool, getpid());
    use_log_format(p.cfg.log_format);
    spawn_workers(p, p.workers);
    log_event("pool", std::to_string(p.workers.size()) + " workers started");
    const timespec tick{0, std::chrono::nanoseconds{log_interval}.count()};
    while (!p.stopping || !p.workers.empty() || !p.retiring.empty()) {
        const int signal = sigtimedwait(&signals, nullptr, &tick);
        if (signal == SIGHUP && !p.stopping) reload(p);
        if ((signal == SIGTERM || signal == SIGINT) && !p.stopping) begin_stop(p);
        reap_exited(p);
        write_out_logs(p);
    }
    return 0;
}

}  // namespace keeper::pool
