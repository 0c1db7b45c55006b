#pragma once
// Hands the worker's threads FastCGI connections from the listening socket that all worker
// processes share, and wakes them all when the worker stops. keeper accepts connections itself
// (libfcgi's FCGX_Accept_r then only reads requests from them) so that a stop can wake threads
// waiting for a connection without touching threads that wait for the next request on a kept
// connection: those must go on serving until nginx closes the connection, or a request nginx is
// sending on it at that moment would be lost.
//
// New connections are spread over the worker processes in turn. Each process waits on the socket
// through one epoll set registered with EPOLLEXCLUSIVE, and one of its idle threads at a time
// waits in it (the others queue on a mutex). The kernel wakes the first waiting set in the
// socket's wait queue, in the order the sets were registered; after each accept the process
// registers its set again, which puts it at the back. Without that, the first process's idle
// threads took every connection while it had one (measured: 48 of 56 kept connections on two of
// eight processes), and calls queued for those two processes' database connections while the
// others' stood idle (docs/performance.md).
//
// A second listening socket, the retry socket, takes what nginx sends again after the worker that
// had a request died with it (nginx's `backup` upstream server; docs/design.md, "In-doubt calls"):
// every request on a connection from it is marked as sent before.
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
