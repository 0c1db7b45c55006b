#include "worker_pool.hpp"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <iostream>
#include <map>
#include <thread>

#include "worker.hpp"

namespace keeper::fcgi {
namespace {

volatile std::sig_atomic_t pool_stop = 0;
volatile std::sig_atomic_t pool_reload = 0;

void on_pool_stop(int) { pool_stop = 1; }
void on_pool_reload(int) { pool_reload = 1; }

using clock = std::chrono::steady_clock;
using worker_set = std::map<pid_t, clock::time_point>;

pid_t spawn_worker(int listen_fd, const core::settings& cfg, core::metrics_block& metrics) {
    const pid_t supervisor = getpid();
    const pid_t pid = fork();
    if (pid == 0) {
        // A worker leaves (gracefully) when its supervisor dies, so a restarted service never finds
        // an orphaned pool serving its socket.
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != supervisor) _exit(0);
        signal(SIGTERM, SIG_DFL);
        signal(SIGINT, SIG_DFL);
        signal(SIGHUP, SIG_IGN);  // reloads are the supervisor's business
        int rc = 1;
        try {
            rc = run_worker(listen_fd, cfg, metrics);
        } catch (const std::exception& e) {
            std::cerr << "worker " << getpid() << ": " << e.what() << std::endl;
        }
        _exit(rc);
    }
    if (pid < 0) std::cerr << "pool: fork failed: " << std::strerror(errno) << std::endl;
    return pid;
}

void spawn_workers(worker_set& workers, int listen_fd, const core::settings& cfg, core::metrics_block& metrics) {
    for (int i = 0; i < cfg.workers; ++i) {
        if (const pid_t pid = spawn_worker(listen_fd, cfg, metrics); pid > 0) workers[pid] = clock::now();
    }
}

std::string describe_exit(int status) {
    if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
    if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
    return "stopped";
}

// New workers with the new configuration are accepting before the old ones are asked to stop,
// and the old ones finish their requests: no request is refused during a reload.
void reload(worker_set& workers, worker_set& retiring, int listen_fd, core::settings& cfg, const settings_loader& loader,
            core::metrics_block& metrics) {
    try {
        auto fresh = loader();
        if (fresh.listen != cfg.listen) std::cerr << "pool: 'listen' changes only on restart" << std::endl;
        cfg = std::move(fresh);
    } catch (const std::exception& e) {
        std::cerr << "pool: reload refused, keeping the running configuration: " << e.what() << std::endl;
        return;
    }
    worker_set fresh;
    spawn_workers(fresh, listen_fd, cfg, metrics);
    for (const auto& [pid, started] : workers) {
        kill(pid, SIGTERM);
        retiring[pid] = started;
    }
    workers = std::move(fresh);
    std::cerr << "pool: configuration reloaded; " << workers.size() << " workers started" << std::endl;
}

void stop_all(const worker_set& workers, const worker_set& retiring) {
    for (const auto& [pid, started] : workers) kill(pid, SIGTERM);
    for (std::size_t left = workers.size() + retiring.size(); left > 0;) {
        if (waitpid(-1, nullptr, 0) > 0 || errno == ECHILD) --left;
    }
}

void install_handlers() {
    struct sigaction sa {};
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = on_pool_stop;  // no SA_RESTART: waitpid() must return on these
    sigaction(SIGTERM, &sa, nullptr);
    sigaction(SIGINT, &sa, nullptr);
    sa.sa_handler = on_pool_reload;
    sigaction(SIGHUP, &sa, nullptr);
}

}  // namespace

int run_pool(int listen_fd, core::settings cfg, const settings_loader& loader, core::metrics_block& metrics) {
    install_handlers();
    worker_set workers, retiring;
    spawn_workers(workers, listen_fd, cfg, metrics);
    std::cerr << "pool: " << workers.size() << " workers started" << std::endl;
    while (!pool_stop) {
        if (pool_reload) {
            pool_reload = 0;
            reload(workers, retiring, listen_fd, cfg, loader, metrics);
        }
        int status = 0;
        const pid_t pid = waitpid(-1, &status, 0);
        if (pid <= 0) continue;
        if (retiring.erase(pid)) continue;
        const auto it = workers.find(pid);
        if (it == workers.end()) continue;
        std::cerr << "pool: worker " << pid << " " << describe_exit(status) << "; replacing it" << std::endl;
        // A worker that dies at once (bad config, broken library) must not make us spin.
        if (clock::now() - it->second < std::chrono::seconds{1}) std::this_thread::sleep_for(std::chrono::seconds{1});
        workers.erase(it);
        if (pool_stop) break;
        if (const pid_t fresh = spawn_worker(listen_fd, cfg, metrics); fresh > 0) workers[fresh] = clock::now();
    }
    std::cerr << "pool: stopping " << workers.size() << " workers" << std::endl;
    stop_all(workers, retiring);
    return 0;
}

}  // namespace keeper::fcgi
