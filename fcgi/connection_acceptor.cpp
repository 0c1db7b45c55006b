#include "connection_acceptor.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <stdexcept>

namespace keeper::fcgi {

connection_acceptor::connection_acceptor(int listen_fd) : m_listen_fd(listen_fd), m_stop_fd(eventfd(0, EFD_CLOEXEC)) {
    if (m_stop_fd < 0) throw std::runtime_error("cannot create an eventfd");
    // A woken thread may find the connection taken by another (EPOLLEXCLUSIVE may wake more than
    // one): non-blocking, accept() then says EAGAIN instead of blocking where a stop cannot reach.
    // (The flag is on the socket all workers share; all its users are keeper workers.)
    const int flags = fcntl(listen_fd, F_GETFL);
    if (flags < 0 || fcntl(listen_fd, F_SETFL, flags | O_NONBLOCK) < 0) {
        throw std::runtime_error("cannot make the listening socket non-blocking");
    }
}

connection_acceptor::~connection_acceptor() { close(m_stop_fd); }

void connection_acceptor::stop() {
    const std::uint64_t one = 1;
    [[maybe_unused]] const auto n = write(m_stop_fd, &one, sizeof one);
}

connection_acceptor::waiter::waiter(const connection_acceptor& acceptor)
    : m_acceptor(acceptor), m_epoll_fd(epoll_create1(EPOLL_CLOEXEC)) {
    epoll_event listen_event{};
    listen_event.events = EPOLLIN | EPOLLEXCLUSIVE;
    listen_event.data.fd = acceptor.m_listen_fd;
    epoll_event stop_event{};
    stop_event.events = EPOLLIN;
    stop_event.data.fd = acceptor.m_stop_fd;
    if (m_epoll_fd < 0 || epoll_ctl(m_epoll_fd, EPOLL_CTL_ADD, acceptor.m_listen_fd, &listen_event) < 0 ||
        epoll_ctl(m_epoll_fd, EPOLL_CTL_ADD, acceptor.m_stop_fd, &stop_event) < 0) {
        if (m_epoll_fd >= 0) close(m_epoll_fd);
        throw std::runtime_error("cannot wait on the listening socket (epoll)");
    }
}

connection_acceptor::waiter::~waiter() { close(m_epoll_fd); }

std::optional<int> connection_acceptor::waiter::next() {
    while (true) {
        epoll_event ready[2];
        const int n = epoll_wait(m_epoll_fd, ready, 2, -1);
        if (n < 0 && errno != EINTR) return std::nullopt;
        for (int i = 0; i < n; ++i) {
            if (ready[i].data.fd == m_acceptor.m_stop_fd) return std::nullopt;
        }
        if (n <= 0) continue;
        const int fd = accept4(m_acceptor.m_listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
        if (fd >= 0) return fd;
        // EAGAIN: another thread took it; ECONNABORTED and friends: the peer gave up. Wait again.
        if (errno == EBADF || errno == EINVAL || errno == ENOTSOCK) return std::nullopt;  // no socket any more
        if (errno == EMFILE || errno == ENFILE) poll(nullptr, 0, 10);  // out of fds: let some close
    }
}

}  // namespace keeper::fcgi
