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

connection_acceptor::connection_acceptor(int listen_fd)
    : m_listen_fd(listen_fd), m_stop_fd(eventfd(0, EFD_CLOEXEC)), m_epoll_fd(epoll_create1(EPOLL_CLOEXEC)) {
    if (m_stop_fd < 0 || m_epoll_fd < 0) {
        if (m_stop_fd >= 0) close(m_stop_fd);
        if (m_epoll_fd >= 0) close(m_epoll_fd);
        throw std::runtime_error("cannot create an eventfd or epoll set");
    }
    // EPOLLEXCLUSIVE may still wake more than one process: non-blocking, accept() then says EAGAIN
    // instead of blocking where a stop cannot reach. (The flag is on the socket all workers share;
    // all its users are keeper workers.)
    const int flags = fcntl(listen_fd, F_GETFL);
    epoll_event stop_event{};
    stop_event.events = EPOLLIN;
    stop_event.data.fd = m_stop_fd;
    if (flags < 0 || fcntl(listen_fd, F_SETFL, flags | O_NONBLOCK) < 0 ||
        epoll_ctl(m_epoll_fd, EPOLL_CTL_ADD, m_stop_fd, &stop_event) < 0 || !watch_listen_socket()) {
        close(m_stop_fd);
        close(m_epoll_fd);
        throw std::runtime_error("cannot wait on the listening socket");
    }
}

connection_acceptor::~connection_acceptor() {
    close(m_epoll_fd);
    close(m_stop_fd);
}

void connection_acceptor::stop() {
    const std::uint64_t one = 1;
    [[maybe_unused]] const auto n = write(m_stop_fd, &one, sizeof one);
}

bool connection_acceptor::watch_listen_socket() {
    epoll_event listen_event{};
    listen_event.events = EPOLLIN | EPOLLEXCLUSIVE;
    listen_event.data.fd = m_listen_fd;
    return epoll_ctl(m_epoll_fd, EPOLL_CTL_ADD, m_listen_fd, &listen_event) == 0;
}

// To the back of the socket's wait queue: the next connection goes to another process first.
// (Registering again fails only without memory: then stop() still wakes us.)
void connection_acceptor::requeue() {
    if (epoll_ctl(m_epoll_fd, EPOLL_CTL_DEL, m_listen_fd, nullptr) == 0) watch_listen_socket();
}

std::optional<int> connection_acceptor::next() {
    const std::lock_guard turn{m_turn};
    while (true) {
        epoll_event ready[2];
        const int n = epoll_wait(m_epoll_fd, ready, 2, -1);
        if (n < 0 && errno != EINTR) return std::nullopt;
        for (int i = 0; i < n; ++i) {
            if (ready[i].data.fd == m_stop_fd) return std::nullopt;  // stays readable: every later caller leaves too
        }
        if (n <= 0) continue;
        const int fd = accept4(m_listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
        if (fd >= 0) {
            requeue();
            return fd;
        }
        // EAGAIN: another process took it; ECONNABORTED and friends: the peer gave up. Wait again.
        if (errno == EBADF || errno == EINVAL || errno == ENOTSOCK) return std::nullopt;  // no socket any more
        if (errno == EMFILE || errno == ENFILE) poll(nullptr, 0, 10);  // out of fds: let some close
    }
}

}  // namespace keeper::fcgi
