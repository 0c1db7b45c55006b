#pragma once
// Hands the worker's threads FastCGI connections from the listening socket that all worker
// processes share, and wakes them all when the worker stops. keeper accepts connections itself
// (libfcgi's FCGX_Accept_r then only reads requests from them) so that a stop can wake threads
// waiting for a connection without touching threads that wait for the next request on a kept
// connection: those must go on serving until nginx closes the connection, or a request nginx is
// sending on it at that moment would be lost.
#include <optional>

namespace keeper::fcgi {

class connection_acceptor {
public:
    explicit connection_acceptor(int listen_fd);
    ~connection_acceptor();
    connection_acceptor(const connection_acceptor&) = delete;
    connection_acceptor& operator=(const connection_acceptor&) = delete;

    // One per serving thread: an epoll set that waits on the shared socket with EPOLLEXCLUSIVE, so
    // a new connection wakes one idle thread (of any worker), not all of them, and on the stop
    // eventfd, which wakes every thread.
    class waiter {
    public:
        explicit waiter(const connection_acceptor& acceptor);
        ~waiter();
        waiter(const waiter&) = delete;
        waiter& operator=(const waiter&) = delete;

        // Blocks until a connection arrives (its fd: blocking, close-on-exec) or the acceptor stops.
        std::optional<int> next();

    private:
        const connection_acceptor& m_acceptor;
        int m_epoll_fd;
    };

    // Any thread; async-signal-safe. Every next(), present and future, returns nullopt.
    void stop();

private:
    int m_listen_fd;
    int m_stop_fd;  // an eventfd: readable once stop() ran
};

}  // namespace keeper::fcgi
