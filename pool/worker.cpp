#include "worker.hpp"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "fcgi/connection_hub.hpp"
#include "fcgi/admission.hpp"
#include "core/pipeline/log_line.hpp"
#include "core/pipeline/request_router.hpp"
#include "config/connection_strings.hpp"
#include "core/wire/soap_reader.hpp"
#include "db/store/pg_store.hpp"
#include "fcgi/fcgi_exchange.hpp"
#include "held_refusals.hpp"
#include "log_writer.hpp"
#include "refused_clients.hpp"

namespace keeper::pool {
namespace {

// What the threads of one worker process share.
struct worker_state {
    worker_state(fcgi::listen_sockets sockets, const core::settings& c, pool_memory shared)
        : cfg(c),
          metrics(shared.metrics),
          clients(shared.refused),
          store(config::worker_conninfo(c), static_cast<std::size_t>(c.database_connections),
                {c.lock_timeout, c.statement_timeout, c.call_budget, std::max(1, c.threads / 2)},
                db::key_file::load(config::secret_key_path(c)), &metrics.database, &shared.calls),
          queue(static_cast<std::size_t>(c.threads), c.admission_wait, &metrics.pool.requests_waiting),
          hub(sockets, queue, c.threads),
          page(metrics) {}

    const core::settings& cfg;
    shared_metrics& metrics;
    refused_clients& clients;  // the pool's
    db::pg_store store;
    fcgi::admission_queue queue;
    fcgi::connection_hub hub;
    pool_metrics page;  // GET /metrics
};

// Counts a thread as busy for its lifetime (keeper_worker_threads_busy).
struct busy_thread {
    std::atomic<std::int64_t>& gauge;
    explicit busy_thread(std::atomic<std::int64_t>& g) : gauge(g) { gauge.fetch_add(1, std::memory_order_relaxed); }
    ~busy_thread() { gauge.fetch_sub(1, std::memory_order_relaxed); }
    busy_thread(const busy_thread&) = delete;
    busy_thread& operator=(const busy_thread&) = delete;
};

// Counts and logs an answered request, and hands its connection back to the hub: to wait for its
// next request, closed (nginx asked to, or it came from the retry socket, whose connections serve
// one request: nginx keeps none of them, since a kept one could be to a worker that dies, and a
// retry sent on it would fail again).
// `thread`: the serving thread's number (fcgi/connection_hub.hpp), -1 for the refuser.
void settle(const fcgi::exchange& x, const fcgi::waiting_request& r, worker_state& w, int thread = -1) {
    if (!x.aborted.empty()) log_event("worker", "request aborted: " + x.aborted);
    if (x.answered) {
        const auto took =
            std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - r.ready_at);
        core::record_request(w.metrics.requests, x.answered->log, took);
        write_log_record(core::format_log_line(x.request_id, *x.answered, took, log_format()));
    }
    if (x.open && !r.retried) {
        w.hub.give_back(r.fd, thread);
    } else {
        w.hub.close_connection(r.fd);
    }
}

// Serving thread `thread` answers the call waiting on r's connection.
void answer(const fcgi::waiting_request& r, worker_state& w, int thread) {
    settle(fcgi::exchange_one(
               r.fd, w.cfg.body_limit, r.retried,
               [&](const core::http_request& req) { return core::handle_request(req, w.store, w.cfg, &w.page); }),
           r, w, thread);
}

// A client by its connection, as nginx (or the front) names it: address and port.
std::string client_of(const core::http_request& req) {
    if (req.remote_addr.empty() || req.remote_port.empty()) return {};
    return req.remote_addr + ' ' + req.remote_port;
}

// Refuses the request waiting on r's connection: read, and answered at once, or held (its client
// came back before the Retry-After it was told ran out).
void refuse(const fcgi::waiting_request& r, held_refusals& held, worker_state& w) {
    w.metrics.pool.requests_refused.fetch_add(1, std::memory_order_relaxed);
    auto begun = fcgi::begin_exchange(r.fd, w.cfg.body_limit, r.retried);
    if (!begun.request) {
        settle(begun.out, r, w);
        return;
    }
    auto refusal = core::refuse_request(*begun.request, core::refusal::busy, {}, r.retry_after_s);
    const auto now = std::chrono::steady_clock::now();
    if (w.clients.refused(client_of(*begun.request), now, std::chrono::seconds{r.retry_after_s})) {
        w.queue.note_ignored();
        w.metrics.pool.refusals_held.fetch_add(1, std::memory_order_relaxed);
        held.hold(now, std::move(begun), std::move(refusal), r);
        return;
    }
    settle(fcgi::finish_exchange(r.fd, std::move(begun), std::move(refusal)), r, w);
}

// Writes the answers of the held refusals whose time has come.
void answer_due(held_refusals& held, worker_state& w) {
    while (auto h = held.due(std::chrono::steady_clock::now())) {
        settle(fcgi::finish_exchange(h->waiting.fd, std::move(h->begun), std::move(h->answer)), h->waiting, w);
    }
}

// Names the calling thread as `top -H` and `perf` show it.
void name_thread(const char* name) { pthread_setname_np(pthread_self(), name); }

void serve_thread(worker_state& w, int thread) {
    name_thread("keeper-serve");
    while (const auto r = w.hub.next_request(thread)) {
        const auto started = std::chrono::steady_clock::now();
        {
            const busy_thread busy{w.metrics.pool.threads_busy};
            answer(*r, w, thread);
        }
        w.queue.served(
            std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - started));
    }
}

// Answers the requests refused on arrival: a read and a short answer each, no database. A client
// that asks again before the Retry-After it was told ran out (a retry storm) gets its answer a
// second after it came: it then asks about once a second instead of once a round trip, and its
// refusals take that much less of the cores (docs/design.md, "Overload"). The hub waits for every
// connection with a request in hand, held ones too, before the queue closes: none is left here.
void refuse_thread(worker_state& w) {
    name_thread("keeper-refuse");
    held_refusals held;
    for (;;) {
        answer_due(held, w);
        if (const auto r = w.queue.take_refused(held.next().value_or(std::chrono::steady_clock::time_point::max()))) {
            refuse(*r, held, w);
        } else if (w.queue.closed()) {
            return;
        }
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

int run_worker(fcgi::listen_sockets sockets, const core::settings& cfg, pool_memory shared) {
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
    auto w = std::make_unique<worker_state>(sockets, cfg, shared);
    std::vector<std::thread> threads;
    for (int i = 0; i < cfg.threads; ++i) threads.emplace_back(serve_thread, std::ref(*w), i);
    threads.emplace_back(refuse_thread, std::ref(*w));
    std::thread watcher{[&] {
        name_thread("keeper-watch");
        w->hub.watch(cfg.drain_time);
    }};
    int signal = 0;
    sigwait(&stops, &signal);
    w->hub.stop();
    watcher.join();  // every connection closed: no request is left to serve
    w->queue.close();
    for (auto& t : threads) t.join();
    return 0;
}

}  // namespace keeper::pool
