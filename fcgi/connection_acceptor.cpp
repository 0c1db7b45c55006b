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

connection_acceptor::connection_acceptor(listen_sockets sockets)
    : m_sockets(sockets), m_stop_fd(eventfd(0, EFD_CLOEXEC)), m_epoll_fd(epoll_create1(EPOLL_CLOEXEC)) {
    if (m_stop_fd < 0 || m_epoll_fd < 0) {
        if (m_stop_fd >= 0) close(m_stop_fd);
        if (m_epoll_fd >= 0) close(m_epoll_fd);
        throw std::runtime_error("cannot create an eventfd or epoll set");
    }
    // EPOLLEXCLUSIVE may still wake more than one process: non-blocking, accept() then says EAGAIN
    // instead of blocking where a stop cannot reach. (The flag is on the sockets all workers share;
    // all their users are keeper workers.)
    epoll_event stop_event{};
    stop_event.events = EPOLLIN;
    stop_event.data.fd = m_stop_fd;
    bool ok = epoll_ctl(m_epoll_fd, EPOLL_CTL_ADD, m_stop_fd, &stop_event) == 0;
    for (const int fd : {m_sockets.main_fd, m_sockets.retry_fd}) {
        if (fd < 0 || !ok) continue;
        const int flags = fcntl(fd, F_GETFL);
        ok = flags >= 0 && fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0 && watch(fd);
    }
    if (!ok) {
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

bool connection_acceptor::watch(int listen_fd) {
    epoll_event listen_event{};
    listen_event.events = EPOLLIN | EPOLLEXCLUSIVE;
    listen_event.data.fd = listen_fd;
    return epoll_ctl(m_epoll_fd, EPOLL_CTL_ADD, listen_fd, &listen_event) == 0;
}

// To the back of the socket's wait queue: the next connection goes to another process first.
// (Registering again fails only without memory: then stop() still wakes us.)
void connection_acceptor::requeue(int listen_fd) {
    if (epoll_ctl(m_epoll_fd, EPOLL_CTL_DEL, listen_fd, nullptr) == 0) watch(listen_fd);
}

// A connection from listen_fd, or nullopt when there was none after all (EAGAIN: another process
// took it; ECONNABORTED and friends: the peer gave up). Throws when the socket is gone.
std::optional<int> connection_acceptor::accept_from(int listen_fd) {
    const int fd = accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd >= 0) {
        requeue(listen_fd);
        return fd;
    }
    if (errno == EBADF || errno == EINVAL || errno == ENOTSOCK) throw std::runtime_error("no listening socket");
    if (errno == EMFILE || errno == ENFILE) poll(nullptr, 0, 10);  // out of fds: let some close
    return std::nullopt;
}

std::optional<accepted_connection> connection_acceptor::next() {
    const std::lock_guard turn{m_turn};
    while (true) {
        epoll_event ready[3];
        const int n = epoll_wait(m_epoll_fd, ready, 3, -1);
        if (n < 0 && errno != EINTR) return std::nullopt;
        bool retry_ready = false, main_ready = false;
        for (int i = 0; i < n; ++i) {
            if (ready[i].data.fd == m_stop_fd) return std::nullopt;  // stays readable: every later caller leaves too
            retry_ready = retry_ready || ready[i].data.fd == m_sockets.retry_fd;
            main_ready = main_ready || ready[i].data.fd == m_sockets.main_fd;
        }
        try {
            // A request sent again has waited once already: it goes first.
            if (retry_ready) {
                if (const auto fd = accept_from(m_sockets.retry_fd)) return accepted_connection{*fd, true};
            }
            if (main_ready) {
                if (const auto fd = accept_from(m_sockets.main_fd)) return accepted_connection{*fd, false};
            }
        } catch (const std::runtime_error&) {
            return std::nullopt;  // no socket any more
        }
    }
}

}  // namespace keeper::fcgi
