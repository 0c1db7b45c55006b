#include "worker.hpp"

#include <fcgiapp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "connection_acceptor.hpp"
#include "core/log_line.hpp"
#include "core/request_router.hpp"
#include "config/connection_strings.hpp"
#include "core/wire/soap_reader.hpp"
#include "db/store/pg_store.hpp"
#include "fcgi_exchange.hpp"
#include "log_writer.hpp"

namespace keeper::fcgi {
namespace {

// One serving thread seen from outside: whether a request is in hand, and a duplicate of the
// connection it is on, so a drain can shut that socket down without racing the thread's own close
// (the duplicate's number cannot be reused while the slot holds it).
struct thread_slot {
    std::atomic<bool> busy{false};
    std::mutex mutex;
    int watch_fd = -1;  // guarded by mutex

    void watch(int fd) {
        std::lock_guard lock{mutex};
        watch_fd = dup(fd);
    }
    void unwatch() {
        std::lock_guard lock{mutex};
        if (watch_fd >= 0) close(watch_fd);
        watch_fd = -1;
    }
    void shut_down_if_idle() {
        std::lock_guard lock{mutex};
        if (watch_fd >= 0 && !busy) shutdown(watch_fd, SHUT_RDWR);
    }
};

// What the threads of one worker process share.
struct worker_state {
    worker_state(listen_sockets sockets, const core::settings& c, core::metrics_block& m)
        : cfg(c), metrics(m),
          store(config::worker_conninfo(c), static_cast<std::size_t>(c.database_connections), {c.lock_timeout, c.statement_timeout, c.call_budget, std::max(1, c.threads / 2)},
                db::key_file::load(config::secret_key_path(c)), &m.runtime),
          acceptor(sockets), slots(static_cast<std::size_t>(c.threads)) {}

    const core::settings& cfg;
    core::metrics_block& metrics;
    db::pg_store store;
    connection_acceptor acceptor;
    std::vector<thread_slot> slots;
    std::mutex mutex;
    std::condition_variable thread_left;
    int running = 0;  // guarded by mutex
};

// Counts a thread as busy for its lifetime (keeper_worker_threads_busy).
struct busy_thread {
    std::atomic<std::int64_t>& gauge;
    explicit busy_thread(std::atomic<std::int64_t>& g) : gauge(g) { gauge.fetch_add(1, std::memory_order_relaxed); }
    ~busy_thread() { gauge.fetch_sub(1, std::memory_order_relaxed); }
    busy_thread(const busy_thread&) = delete;
    busy_thread& operator=(const busy_thread&) = delete;
};

// Answers one request; the response is on its way to nginx before the metrics and the log line.
// `retried`: the request came on the retry socket (nginx sends it again after a worker died).
void serve_one(FCGX_Request& request, worker_state& w, bool retried) {
    const auto started = std::chrono::steady_clock::now();
    const busy_thread busy{w.metrics.runtime.threads_busy};
    auto req = read_request(request, w.cfg.body_limit);
    req.retried = retried;
    req.arrived = started;
    const auto handled = core::handle_request(req, w.store, w.cfg, &w.metrics);
    write_response(request, handled.response, req.request_id);
    // A connection from the retry socket serves one request and closes, so nginx keeps none of
    // them: a kept one could be to a worker that dies, and a retry sent on it would fail again.
    if (retried) request.keepConnection = 0;
    FCGX_Finish_r(&request);
    const auto took = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - started);
    core::record_request(w.metrics, handled.log, took);
    write_log_record(core::format_log_line(req.request_id, handled, took));
}

// Waits until the kept connection has something to read (a request, or nginx closing it). A thread
// blocked in read() on a Unix socket sleeps on the same wait queue as writers and is woken each
// time nginx reads our previous response (the socket became writable), only to find nothing and
// sleep again: 1.8 context switches per request where 1 is needed. poll() asks for POLLIN only,
// and the kernel skips waking it for "writable" (docs/performance.md, "Where the time goes").
// Then FCGX_Accept_r reads the request (false: the connection is closed).
bool next_request(FCGX_Request& request, int fd) {
    pollfd p{fd, POLLIN, 0};
    while (poll(&p, 1, -1) < 0 && errno == EINTR) {
    }
    return FCGX_Accept_r(&request) == 0;
}

// Serves requests on one FastCGI connection until it closes. FCGX_Accept_r reads the next request
// from the connection already in `request` (ipcFd) and keeps it between requests when nginx asks
// (fastcgi_keep_conn). When nginx closes it, libfcgi closes our end and falls back to accepting on
// the request's listening socket, which is -1 here: Accept_r then fails and we return. (ipcFd and
// keepConnection are libfcgi 2.4's request fields; see connection_acceptor.hpp for why.)
void serve_connection(FCGX_Request& request, accepted_connection c, thread_slot& slot, worker_state& w) {
    const int fd = c.fd;
    request.ipcFd = fd;
    request.keepConnection = 1;  // Accept_r first "finishes" the previous request: keep this fd open
    slot.watch(fd);
    while (next_request(request, fd)) {
        slot.busy = true;
        try {
            serve_one(request, w, c.from_retry_socket);
        } catch (const std::exception& e) {
            // Only the FastCGI stream can get here (handle_request never throws): the client is gone.
            write_log_record(std::string{"worker: request aborted: "} + e.what());
            if (c.from_retry_socket) request.keepConnection = 0;
            FCGX_Finish_r(&request);
        }
        slot.busy = false;
        if (c.from_retry_socket) break;  // closed by FCGX_Finish_r (serve_one)
    }
    slot.unwatch();
}

void serve_thread(thread_slot& slot, worker_state& w) {
    FCGX_Request request;
    FCGX_InitRequest(&request, -1, 0);
    while (const auto c = w.acceptor.next()) serve_connection(request, *c, slot, w);
    std::lock_guard lock{w.mutex};
    --w.running;
    w.thread_left.notify_all();
}

// After a stop, threads still on kept connections serve until nginx closes them (its upstream
// keepalive_timeout and keepalive_time bound that, see nginx/keeper-upstream.conf). Past the
// drain time, idle connections are shut down so their threads leave; busy ones finish first. (A
// request nginx sends on one just then would get 502; nginx closes its connections well before.)
void drain(worker_state& w) {
    std::unique_lock lock{w.mutex};
    const auto deadline = std::chrono::steady_clock::now() + w.cfg.drain_time;
    if (w.thread_left.wait_until(lock, deadline, [&] { return w.running == 0; })) return;
    while (w.running > 0) {
        for (auto& slot : w.slots) slot.shut_down_if_idle();
        w.thread_left.wait_for(lock, std::chrono::milliseconds{100});
    }
}

sigset_t stop_signals() {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    return set;
}

}  // namespace

int run_worker(listen_sockets sockets, const core::settings& cfg, core::metrics_block& metrics) {
    // Stop signals wait for this thread's sigwait; the serving threads inherit the blocked mask.
    const sigset_t stops = stop_signals();
    pthread_sigmask(SIG_BLOCK, &stops, nullptr);
    // SCHED_BATCH (threads inherit it): a worker thread woken by nginx's request does not preempt
    // the nginx worker that wrote it, so nginx finishes its batch of events first and sleeps less
    // often. Measured with scripts/bench on 2 cores: context switches per request in nginx halved,
    // CPU per request down about a quarter in both nginx and the workers (docs/performance.md).
    // Under systemd the unit sets it (CPUSchedulingPolicy=batch) and the call filter refuses this.
    const sched_param batch{};
    sched_setscheduler(0, SCHED_BATCH, &batch);
    core::init_xml_guards();
    auto w = std::make_unique<worker_state>(sockets, cfg, metrics);
    std::vector<std::thread> threads;
    w->running = static_cast<int>(w->slots.size());
    for (auto& slot : w->slots) threads.emplace_back(serve_thread, std::ref(slot), std::ref(*w));
    int signal = 0;
    sigwait(&stops, &signal);
    w->acceptor.stop();
    drain(*w);
    for (auto& t : threads) t.join();
    return 0;
}

}  // namespace keeper::fcgi
