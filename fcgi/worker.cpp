#include "worker.hpp"

#include <fcgiapp.h>
#include <signal.h>

#include <chrono>
#include <cstdlib>
#include <csignal>
#include <iostream>

#include "core/log_line.hpp"
#include "core/request_router.hpp"
#include "core/soap_reader.hpp"
#include "db/pg_store.hpp"
#include "fcgi_exchange.hpp"

namespace keeper::fcgi {
namespace {

volatile std::sig_atomic_t stop_requested = 0;

void on_stop_signal(int) { stop_requested = 1; }

// Signals are blocked while a request is in hand, so a stop never interrupts one half-way; they
// are let in only around accept(), which FCGI_FAIL_ACCEPT_ON_INTR makes return on them.
class signal_gate {
public:
    signal_gate() {
        sigemptyset(&m_set);
        sigaddset(&m_set, SIGTERM);
        sigaddset(&m_set, SIGINT);
        struct sigaction sa {};
        sa.sa_handler = on_stop_signal;  // no SA_RESTART: accept() must return
        sigemptyset(&sa.sa_mask);
        sigaction(SIGTERM, &sa, nullptr);
        sigaction(SIGINT, &sa, nullptr);
        sigprocmask(SIG_BLOCK, &m_set, nullptr);
    }
    void open() { sigprocmask(SIG_UNBLOCK, &m_set, nullptr); }
    void close() { sigprocmask(SIG_BLOCK, &m_set, nullptr); }

private:
    sigset_t m_set;
};

void serve_one(FCGX_Request& request, db::pg_store& store, const core::settings& cfg, core::metrics_block& metrics) {
    const auto started = std::chrono::steady_clock::now();
    const auto req = read_request(request, cfg.body_limit);
    const auto handled = core::handle_request(req, store, cfg, &metrics);
    write_response(request, handled.response, req.request_id);
    const auto took = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - started);
    core::record_request(metrics, handled.log, took);
    std::cerr << core::format_log_line(req.request_id, handled, took) << std::endl;
}

}  // namespace

int run_worker(int listen_fd, const core::settings& cfg, core::metrics_block& metrics) {
    signal_gate gate;
    core::init_xml_guards();
    // Names our connections in pg_stat_activity (unless the connection string names them).
    setenv("PGAPPNAME", "keeper-fcgi", 0);
    db::pg_store store{cfg.database_url};
    FCGX_Request request;
    FCGX_InitRequest(&request, listen_fd, FCGI_FAIL_ACCEPT_ON_INTR);
    while (!stop_requested) {
        gate.open();
        const int rc = stop_requested ? -1 : FCGX_Accept_r(&request);
        gate.close();
        if (rc < 0) continue;  // a stop signal, or a failed accept: the loop condition decides
        try {
            serve_one(request, store, cfg, metrics);
        } catch (const std::exception& e) {
            // Only the FastCGI stream can get here (handle_request never throws): the client is gone.
            std::cerr << "worker: request aborted: " << e.what() << std::endl;
        }
        FCGX_Finish_r(&request);
    }
    FCGX_Free(&request, 1);
    return 0;
}

}  // namespace keeper::fcgi
