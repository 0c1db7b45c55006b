#pragma once
// A worker process's FastCGI connections, held in one epoll set by one thread: it accepts every
// connection nginx opens (so none waits in the listening socket's backlog, where nobody sees it
// age), watches the idle ones, and offers each request to the admission queue the moment it
// arrives (core/admission.hpp). A serving thread takes the request, answers it, and gives the
// connection back to wait for its next one. docs/design.md, "The process model" and "Overload".
//
// The listening sockets are shared by every worker process and registered with EPOLLEXCLUSIVE,
// registered again after each accept, so new connections go to the processes in turn. A
// connection from the retry socket marks its request as sent before and serves only that one.
#include <chrono>
#include <mutex>
#include <unordered_map>

#include "core/admission.hpp"

namespace keeper::fcgi {

// The pool's listening sockets: the one nginx sends every request to, and the retry socket (-1:
// none).
struct listen_sockets {
    int main_fd = -1;
    int retry_fd = -1;
};

class connection_hub {
public:
    connection_hub(listen_sockets sockets, core::admission_queue& queue);
    ~connection_hub();
    connection_hub(const connection_hub&) = delete;
    connection_hub& operator=(const connection_hub&) = delete;

    // The hub's thread: until stop(), and then, no longer accepting, until nginx closed every
    // connection or `drain` passed, when the idle ones are shut down and the busy ones finish.
    // Returns with every connection closed.
    void run(std::chrono::seconds drain);
    // Any thread; async-signal-safe.
    void stop();

    // A serving thread is done with a request: the connection waits for its next one.
    void give_back(int fd);
    // A serving thread is done with a connection (closed by nginx, or a retry socket's one).
    void close_connection(int fd);

private:
    bool watch_listening(int listen_fd);
    void accept_from(int listen_fd, bool retried);
    void offer(int fd);
    bool serve_events(int timeout_ms);
    void shut_down_idle();
    std::size_t open_connections();

    listen_sockets m_sockets;
    core::admission_queue& m_queue;
    int m_stop_fd;   // an eventfd: readable once stop() ran
    int m_epoll_fd;  // the listening sockets, the idle connections, the stop eventfd
    bool m_stopping = false;  // the hub's thread only

    struct connection {
        bool retried;  // from the retry socket
        bool idle;     // waiting in the epoll set for a request
    };
    std::mutex m_mutex;
    std::unordered_map<int, connection> m_connections;  // guarded by m_mutex
};

}  // namespace keeper::fcgi
