#pragma once
// A worker process's FastCGI connections, held in one epoll set: every connection nginx opens is
// accepted (so none waits in the listening socket's backlog, where nobody sees it age), idle ones
// wait in the set, and each request is taken the moment it arrives (docs/design.md, "The process
// model" and "Overload").
//
// The serving threads wait in the set themselves: the kernel wakes one for a request, and that
// thread serves it, one wake-up per request. While every serving thread is busy, the watcher (the
// hub's own thread) waits in the set instead and offers each request to the admission queue
// (fcgi/admission.hpp), which queues it for the next thread to finish or refuses it at once. A
// request queued while a serving thread sits idle (a race) rings the wake-up eventfd, which that
// thread answers by taking it.
//
// The listening sockets are shared by every worker process and registered with EPOLLEXCLUSIVE,
// registered again after each wake-up's few accepts, so new connections go to the processes in
// turn. A connection from the retry socket marks its request as sent before and serves only that
// one. Connections are registered once, edge-triggered (connection_hub.cpp, watch_connection).
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <unordered_map>

#include "admission.hpp"
#include "listen_sockets.hpp"

namespace keeper::fcgi {

class connection_hub {
public:
    connection_hub(listen_sockets sockets, admission_queue& queue);
    ~connection_hub();
    connection_hub(const connection_hub&) = delete;
    connection_hub& operator=(const connection_hub&) = delete;

    // A serving thread's next request: a queued one first, else the next to arrive. nullopt once
    // the hub is done (after a stop, every connection closed).
    std::optional<waiting_request> next_request();
    // The watcher's thread: watches while every serving thread is busy, until stop() and then,
    // no longer accepting, until nginx closed every connection or `drain` passed, when the idle
    // ones are shut down and the busy ones finish. Returns with every connection closed.
    void watch(std::chrono::seconds drain);
    // Any thread; async-signal-safe.
    void stop();

    // A serving thread is done with a request: the connection waits for its next one.
    void give_back(int fd);
    // A serving thread is done with a connection (closed by nginx, or a retry socket's one).
    void close_connection(int fd);

private:
    enum class seen { nothing, request, wake, done };
    // What one event was, after its bookkeeping (accepts, the stop) is done. request: *out is it.
    seen handle(std::uint64_t tag, waiting_request* out);
    bool watch_listening(int listen_fd);
    void accept_from(int listen_fd, bool retried);
    bool claim(int fd, std::uint32_t generation, waiting_request* out);
    void begin_stop();
    void shut_down_idle();
    std::size_t open_connections();
    void set_idle(int delta);

    listen_sockets m_sockets;
    admission_queue& m_queue;
    int m_stop_fd;   // an eventfd: readable once stop() ran
    int m_wake_fd;   // an eventfd (semaphore): a request was queued while a thread sat idle
    int m_done_fd;   // an eventfd: readable once the hub is done, for every thread
    int m_epoll_fd;  // the listening sockets, the idle connections, the three eventfds
    std::atomic<bool> m_stopping{false};
    std::atomic<bool> m_done{false};

    std::mutex m_gate_mutex;
    std::condition_variable m_all_busy;  // the watcher waits here while a serving thread is idle
    int m_idle = 0;                      // serving threads waiting in the set; guarded by m_gate_mutex

    struct connection {
        bool retried;              // from the retry socket
        bool idle;                 // waiting in the epoll set for a request
        bool rung;                 // an edge came while it was busy
        std::uint32_t generation;  // its events' tag, unique among the process's connections
    };
    std::mutex m_mutex;
    std::unordered_map<int, connection> m_connections;  // guarded by m_mutex
    std::uint32_t m_generation = 0;                     // guarded by m_mutex
};

}  // namespace keeper::fcgi
