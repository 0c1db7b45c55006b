#pragma once
// A worker process's FastCGI connections: every connection nginx opens is accepted (so none waits
// in the listening socket's backlog, where nobody sees it age), and each request is taken the
// moment it arrives (docs/design.md, "The process model" and "Overload").
//
// Each serving thread owns a lane: an epoll set of its own holding the connections it owns (a new
// one goes to the lane owning fewest). A kept connection's next request wakes its owner and no
// other thread, and stays registered between requests, so a request costs the owner one
// `epoll_wait`, one `read` and one `write`. A request on the connection of an owner busy with
// another one is taken over by the watcher (the hub's own thread): it looks into the lanes busy
// for longer than `take_over_after`, and while every lane is busy it waits on all of them at once
// (an epoll set of the lanes' sets), offering each request to the admission queue
// (fcgi/admission.hpp), which queues it for the next thread to finish or refuses it at once. A
// connection taken over joins the lane of the thread that served it.
//
// The listening sockets are shared by every worker process and every lane, registered with
// EPOLLEXCLUSIVE and registered again after each wake-up's few accepts, so new connections go to
// the processes in turn. A connection from the retry socket marks its request as sent before and
// serves only that one.
#include <atomic>
#include <chrono>
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
    // How long a lane may be busy before the watcher takes over the requests waiting in it.
    static constexpr std::chrono::milliseconds take_over_after{2};

    connection_hub(listen_sockets sockets, admission_queue& queue, int lanes);
    ~connection_hub();
    connection_hub(const connection_hub&) = delete;
    connection_hub& operator=(const connection_hub&) = delete;

    // Serving thread `lane`'s next request: a queued one first, else the next to arrive on its
    // connections. nullopt once the hub is done (after a stop, every connection closed).
    std::optional<waiting_request> next_request(int lane);
    // The watcher's thread: takes over requests waiting behind a busy owner, until stop() and then,
    // no longer accepting, until nginx closed every connection or `drain` passed, when the idle
    // ones are shut down and the busy ones finish. Returns with every connection closed.
    void watch(std::chrono::seconds drain);
    // Any thread; async-signal-safe.
    void stop();

    // A thread is done with a request: the connection waits for its next one, in `lane` if it was
    // taken over (or in the lane owning fewest, for the refuser, which owns none).
    void give_back(int fd, int lane = -1);
    // A thread is done with a connection (closed by nginx, or a retry socket's one).
    void close_connection(int fd);

private:
    struct lane {
        int epoll_fd = -1;  // its connections, the listening sockets, its wake-up and the done eventfds
        int wake_fd = -1;   // an eventfd: a request was queued while this lane sat idle
        std::atomic<bool> idle{false};
        std::atomic<std::chrono::steady_clock::rep> busy_since{0};
        int owned = 0;  // connections registered in it; guarded by m_mutex
    };
    struct connection {
        int lane;      // whose set it is registered in; -1 while taken over
        bool retried;  // from the retry socket
        bool busy;     // a thread reads or answers its request
    };
    enum class seen { nothing, request, wake, done };

    seen handle(int fd, int lane, waiting_request* out);
    bool watch_listening(int epoll_fd, int listen_fd);
    void accept_from(int lane, int listen_fd, bool retried);
    bool register_in(int lane, int fd);
    int fewest_owned() const;
    bool claim(int fd, waiting_request* out);
    bool take_over(int fd, int lane, waiting_request* out);
    bool hand_over(int fd);
    void look_into(int lane);
    void offer(const waiting_request& r);
    bool every_lane_busy() const;
    void begin_stop();
    void shut_down_idle();
    std::size_t open_connections();
    void close_all();

    listen_sockets m_sockets;
    admission_queue& m_queue;
    int m_stop_fd;   // an eventfd: readable once stop() ran
    int m_done_fd;   // an eventfd: readable once the hub is done, for every thread
    int m_lanes_fd;  // the watcher's epoll set: every lane's set (edge-triggered) and m_stop_fd
    std::vector<std::unique_ptr<lane>> m_lanes;
    std::atomic<bool> m_stopping{false};
    std::atomic<bool> m_done{false};

    mutable std::mutex m_mutex;
    std::unordered_map<int, connection> m_connections;  // guarded by m_mutex
};

}  // namespace keeper::fcgi
