#pragma once
// Hands the worker's threads FastCGI connections from the listening socket all worker processes
// share, and wakes them all when the worker stops. keeper accepts connections itself (libfcgi then
// only reads requests from them) so that a stop wakes the threads waiting for a connection without
// touching those waiting for the next request on a kept connection, which serve on until nginx
// closes it. One idle thread per process waits in an epoll set registered with EPOLLEXCLUSIVE and
// registered again after each accept, so new connections go to the processes in turn and all their
// database connections share the load. A connection from the retry socket marks its requests as
// sent before. docs/design.md, "The process model" and "In-doubt calls".
#include <mutex>
#include <optional>

namespace keeper::fcgi {

// The pool's listening sockets: the one nginx sends every request to, and the retry socket (-1:
// none).
struct listen_sockets {
    int main_fd = -1;
    int retry_fd = -1;
};

struct accepted_connection {
    int fd;
    bool from_retry_socket;
};

class connection_acceptor {
public:
    explicit connection_acceptor(listen_sockets sockets);
    ~connection_acceptor();
    connection_acceptor(const connection_acceptor&) = delete;
    connection_acceptor& operator=(const connection_acceptor&) = delete;

    // Any thread: blocks until a connection arrives (its fd: blocking, close-on-exec) or the
    // acceptor stops (nullopt, at once for every caller from then on).
    std::optional<accepted_connection> next();

    // Any thread; async-signal-safe.
    void stop();

private:
    bool watch(int listen_fd);  // false: the kernel refused
    void requeue(int listen_fd);
    std::optional<int> accept_from(int listen_fd);

    listen_sockets m_sockets;
    int m_stop_fd;   // an eventfd: readable once stop() ran
    int m_epoll_fd;  // the listening sockets (EPOLLEXCLUSIVE) and the stop eventfd
    std::mutex m_turn;  // held by the one thread waiting in m_epoll_fd
};

}  // namespace keeper::fcgi
