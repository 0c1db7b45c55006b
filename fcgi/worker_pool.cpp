#include "worker_pool.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <chrono>
#include <csignal>
#include <iostream>
#include <map>
#include <thread>

#include "worker.hpp"

namespace keeper::fcgi {
namespace {

volatile std::sig_atomic_t pool_stop = 0;

void on_pool_stop(int) { pool_stop = 1; }

using clock = std::chrono::steady_clock;

pid_t spawn_worker(int listen_fd, const core::settings& cfg) {
    const pid_t pid = fork();
    if (pid == 0) {
        signal(SIGTERM, SIG_DFL);
        signal(SIGINT, SIG_DFL);
        int rc = 1;
        try {
            rc = run_worker(listen_fd, cfg);
        } catch (const std::exception& e) {
            std::cerr << "worker " << getpid() << ": " << e.what() << std::endl;
        }
        _exit(rc);
    }
    if (pid < 0) std::cerr << "pool: fork failed: " << std::strerror(errno) << std::endl;
    return pid;
}

std::string describe_exit(int status) {
    if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
    if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
    return "stopped";
}

void stop_all(const std::map<pid_t, clock::time_point>& workers) {
    for (const auto& [pid, started] : workers) kill(pid, SIGTERM);
    for (std::size_t left = workers.size(); left > 0;) {
        if (waitpid(-1, nullptr, 0) > 0 || errno == ECHILD) --left;
    }
}

}  // namespace

int run_pool(int listen_fd, const core::settings& cfg) {
    struct sigaction sa {};
    sa.sa_handler = on_pool_stop;  // no SA_RESTART: waitpid() must return on it
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, nullptr);
    sigaction(SIGINT, &sa, nullptr);

    std::map<pid_t, clock::time_point> workers;
    for (int i = 0; i < cfg.workers; ++i) {
        if (const pid_t pid = spawn_worker(listen_fd, cfg); pid > 0) workers[pid] = clock::now();
    }
    std::cerr << "pool: " << workers.size() << " workers started" << std::endl;
    while (!pool_stop) {
        int status = 0;
        const pid_t pid = waitpid(-1, &status, 0);
        if (pid <= 0) continue;
        const auto it = workers.find(pid);
        if (it == workers.end()) continue;
        std::cerr << "pool: worker " << pid << " " << describe_exit(status) << "; replacing it" << std::endl;
        // A worker that dies at once (bad config, broken library) must not make us spin.
        if (clock::now() - it->second < std::chrono::seconds{1}) std::this_thread::sleep_for(std::chrono::seconds{1});
        workers.erase(it);
        if (pool_stop) break;
        if (const pid_t fresh = spawn_worker(listen_fd, cfg); fresh > 0) workers[fresh] = clock::now();
    }
    std::cerr << "pool: stopping " << workers.size() << " workers" << std::endl;
    stop_all(workers);
    return 0;
}

}  // namespace keeper::fcgi
