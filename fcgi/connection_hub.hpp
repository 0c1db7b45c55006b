#pragma once
// A worker process's FastCGI connections, held in one epoll set: every connection nginx opens is
// accepted (so none waits in the listening socket's backlog, where nobody sees it age), idle ones
// wait in the set, and each request is taken the moment it arrives (docs/design.md, "The process
// model" and "Overload").
//
// The serving threads wait in the set themselves: the kernel wakes one for a request, and that
// thread serves it. Each serving thread has a home (thread_home), an epoll set of its own with the
// shared set nested in it: the connection it served last waits there while the thread is idle, so
// that connection's next request wakes this thread and no other, with no re-arm. Without homes,
// the kernel woke the thread that had waited longest for a request that the thread just finishing
// its own then took first, and the woken one slept again: a third more switches than requests
// (docs/performance.md, "Where the time goes"). nginx reuses the connection it freed last, so a
// thread's next request mostly comes home. A thread leaves its home connection to the shared set
// before it serves any other one, so no request waits for a busy thread; and it takes a
// connection home only while no request is queued.
//
// While every serving thread is busy, the watcher (the hub's own thread) waits in the shared set
// instead and offers each request to the admission queue (fcgi/admission.hpp), which queues it for
// the next thread to finish or refuses it at once. A request queued while a serving thread sits
// idle (a race) rings the wake-up eventfd, which that thread answers by taking it.
//
// The listening sockets are shared by every worker process and registered with EPOLLEXCLUSIVE,
// registered again after each wake-up's few accepts, so new connections go to the processes in
// turn. A connection from the retry socket marks its request as sent before and serves only that
// one.
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

class connection_hub;

// A serving thread's own epoll set: the connection at home (level-triggered: only this thread
// waits here) and the hub's shared set. Owned by the thread, for its life.
class thread_home {
public:
    explicit thread_home(const connection_hub& hub);
    ~thread_home();
    thread_home(const thread_home&) = delete;
    thread_home& operator=(const thread_home&) = delete;

private:
    friend class connection_hub;
    int m_epoll_fd;
    int m_fd = -1;  // the connection at home, or none
};

class connection_hub {
public:
    connection_hub(listen_sockets sockets, admission_queue& queue);
    ~connection_hub();
    connection_hub(const connection_hub&) = delete;
    connection_hub& operator=(const connection_hub&) = delete;

    // A serving thread's next request: a queued one first, else the next to arrive, at its home
    // or in the shared set. nullopt once the hub is done (after a stop, every connection closed).
    std::optional<waiting_request> next_request(thread_home& home);
    // The watcher's thread: watches while every serving thread is busy, until stop() and then,
    // no longer accepting, until nginx closed every connection or `drain` passed, when the idle
    // ones are shut down and the busy ones finish. Returns with every connection closed.
    void watch(std::chrono::seconds drain);
    // Any thread; async-signal-safe.
    void stop();

    // A thread is done with a request: the connection waits for its next one, at the serving
    // thread's home when it has none (home: nullptr for the refuser) and nothing is queued.
    void give_back(int fd, thread_home* home);
    // A thread is done with a connection (closed by nginx, or a retry socket's one).
    void close_connection(int fd, thread_home* home);
    // libfcgi closed the connection itself (nginx went away, or a stream error): forgotten unless
    // its number already names a newer connection (generation, waiting_request::generation).
    void forget(int fd, std::uint64_t generation, thread_home* home);

private:
    enum class seen { nothing, request, wake, done };
    // What one event was, after its bookkeeping (accepts, the stop) is done. request: *out is it.
    seen handle(int fd, waiting_request* out);
    bool watch_listening(int listen_fd);
    void accept_from(int listen_fd, bool retried);
    bool claim(int fd, waiting_request* out);
    waiting_request leave_home_for(thread_home& home, const waiting_request& r);
    waiting_request sent_from_home(thread_home& home, const waiting_request& r);
    void left(thread_home* home, int fd);
    void begin_stop();
    void shut_down_idle();
    std::size_t open_connections();
    void set_idle(int delta);

    listen_sockets m_sockets;
    admission_queue& m_queue;
    int m_stop_fd;   // an eventfd: readable once stop() ran
    int m_wake_fd;   // an eventfd (semaphore): a request was queued while a thread sat idle
    int m_done_fd;   // an eventfd: readable once the hub is done, for every thread
    int m_epoll_fd;  // the listening sockets, the idle connections not at home, the three eventfds
    std::atomic<bool> m_stopping{false};
    std::atomic<bool> m_done{false};

    std::mutex m_gate_mutex;
    std::condition_variable m_all_busy;  // the watcher waits here while a serving thread is idle
    int m_idle = 0;                      // serving threads waiting in the set; guarded by m_gate_mutex

    struct connection {
        std::uint64_t generation;
        bool retried;  // from the retry socket
        bool idle;     // waiting in the epoll set for a request
        // The set it is in: the shared one, a serving thread's home, or none (its request, come
        // home, was handed to the queue; the thread that serves it gives it back as any other).
        enum class set : std::uint8_t { shared, home, none } in = set::shared;
    };

    friend class thread_home;
    std::uint64_t m_accepted = 0;  // guarded by m_mutex
    std::mutex m_mutex;
    std::unordered_map<int, connection> m_connections;  // guarded by m_mutex
};

}  // namespace keeper::fcgi
