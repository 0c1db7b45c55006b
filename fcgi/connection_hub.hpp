#pragma once
// A worker process's FastCGI connections: every connection nginx opens is accepted (so none waits
// in the listening socket's backlog, where nobody sees it age), and each request is taken the
// moment it arrives (docs/design.md, "The process model" and "Overload").
//
// Each serving thread owns at most one kept connection, registered in an epoll set of the
// thread's own: that connection's next request wakes its owner and no other thread, and costs it
// one `epoll_wait`, one `read` and one `write`. Owning one at most, an owner is never busy when its
// connection's request comes (nginx sends the next request only after it read the answer), so no
// request waits behind another. A thread that owns none adopts the connection it just served.
//
// The other connections wait in the watcher's set (the hub's own thread), with the listening
// sockets: the watcher accepts, and offers each request on a connection nobody owns to the
// admission queue (fcgi/admission.hpp), which queues it or refuses it at once, and rings an idle
// thread (one owning no connection first) to take it. A thread that owns a connection and takes a
// queued request first gives its connection back to the watcher's set.
//
// The listening sockets are shared by every worker process and registered with EPOLLEXCLUSIVE,
// registered again after each wake-up's few accepts, so new connections go to the processes in
// turn. A connection from the retry socket marks its request as sent before and serves only that
// one. Connections are registered edge-triggered (connection_hub.cpp, watch_connection).
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <vector>

#include "admission.hpp"
#include "listen_sockets.hpp"

namespace keeper::fcgi {

class connection_hub {
public:
    connection_hub(listen_sockets sockets, admission_queue& queue, int threads);
    ~connection_hub();
    connection_hub(const connection_hub&) = delete;
    connection_hub& operator=(const connection_hub&) = delete;

    // Serving thread `thread`'s next request: a queued one first, else the next on the connection
    // it owns. nullopt once the hub is done (after a stop, every connection closed).
    std::optional<waiting_request> next_request(int thread);
    // The watcher's thread: accepts, and offers the requests on connections nobody owns, until
    // stop() and then, no longer accepting, until nginx closed every connection or `drain` passed,
    // when the idle ones are shut down and the busy ones finish. Returns with every connection closed.
    void watch(std::chrono::seconds drain);
    // Any thread; async-signal-safe.
    void stop();

    // A thread is done with a request: the connection waits for its next one, in `thread`'s own
    // set if that thread owns none yet (-1: the refuser, which owns none; it stays the watcher's).
    void give_back(int fd, int thread = -1);
    // A thread is done with a connection (closed by nginx, or a retry socket's one).
    void close_connection(int fd);

private:
    struct thread_set {
        int epoll_fd = -1;  // its connection, its wake-up and the done eventfd
        int wake_fd = -1;   // an eventfd: a request was queued for it
        int owned = -1;     // the connection it owns; guarded by m_mutex
        bool idle = false;  // waiting for a request; guarded by m_mutex
    };
    struct connection {
        bool retried;              // from the retry socket
        bool idle;                 // waiting for a request
        bool rung;                 // an edge came while it was busy, in the watcher's set
        int owner;                 // the thread whose set holds it; -1: the watcher's
        std::uint32_t generation;  // its events' tag, unique among the process's connections
    };

    bool watch_listening(int listen_fd);
    void accept_from(int listen_fd, bool retried);
    bool claim(int fd, std::uint32_t generation, waiting_request* out);
    void set_idle(int thread, bool idle);
    void ring_idle_thread();
    bool any_idle();
    void release(int thread, int keep_fd);
    void offer(std::uint64_t tag);
    void begin_stop();
    void forget_locked(int fd);
    void close_own_fds();
    void shut_down_idle();
    std::size_t open_connections();

    listen_sockets m_sockets;
    admission_queue& m_queue;
    int m_stop_fd;   // an eventfd: readable once stop() ran
    int m_done_fd;   // an eventfd: readable once the hub is done, for every thread
    int m_epoll_fd;  // the watcher's: the listening sockets, the connections nobody owns, m_stop_fd
    std::vector<std::unique_ptr<thread_set>> m_threads;
    std::atomic<bool> m_stopping{false};
    std::atomic<bool> m_done{false};

    std::mutex m_mutex;
    std::unordered_map<int, connection> m_connections;  // guarded by m_mutex
    std::vector<int> m_idle;                            // idle threads, the latest last; guarded by m_mutex
    std::uint32_t m_generation = 0;                     // guarded by m_mutex
};

}  // namespace keeper::fcgi
