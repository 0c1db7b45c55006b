#include "connection_hub.hpp"

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
namespace {

bool watch_connection(int epoll_fd, int fd, int op) {
    epoll_event e{};
    e.events = EPOLLIN | EPOLLONESHOT;  // one thread at a time reads it: given back after its answer
    e.data.fd = fd;
    return epoll_ctl(epoll_fd, op, fd, &e) == 0;
}

}  // namespace

connection_hub::connection_hub(listen_sockets sockets, core::admission_queue& queue)
    : m_sockets(sockets), m_queue(queue), m_stop_fd(eventfd(0, EFD_CLOEXEC)), m_epoll_fd(epoll_create1(EPOLL_CLOEXEC)) {
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
        ok = flags >= 0 && fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0 && watch_listening(fd);
    }
    if (!ok) {
        close(m_stop_fd);
        close(m_epoll_fd);
        throw std::runtime_error("cannot wait on the listening socket");
    }
}

connection_hub::~connection_hub() {
    for (const auto& [fd, c] : m_connections) close(fd);
    close(m_epoll_fd);
    close(m_stop_fd);
}

void connection_hub::stop() {
    const std::uint64_t one = 1;
    [[maybe_unused]] const auto n = write(m_stop_fd, &one, sizeof one);
}

bool connection_hub::watch_listening(int listen_fd) {
    epoll_event e{};
    e.events = EPOLLIN | EPOLLEXCLUSIVE;
    e.data.fd = listen_fd;
    return epoll_ctl(m_epoll_fd, EPOLL_CTL_ADD, listen_fd, &e) == 0;
}

// One connection, then to the back of the socket's wait queue: the next goes to another process
// first, so every process's database connections share the load. EAGAIN: another process took
// it; ECONNABORTED and friends: the peer gave up.
void connection_hub::accept_from(int listen_fd, bool retried) {
    const int fd = accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) {
        if (errno == EMFILE || errno == ENFILE) poll(nullptr, 0, 10);  // out of fds: let some close
        return;
    }
    if (epoll_ctl(m_epoll_fd, EPOLL_CTL_DEL, listen_fd, nullptr) == 0) watch_listening(listen_fd);
    std::lock_guard lock{m_mutex};
    m_connections[fd] = {retried, true};
    if (!watch_connection(m_epoll_fd, fd, EPOLL_CTL_ADD)) {
        m_connections.erase(fd);
        close(fd);
    }
}

// A request arrived (or nginx closed the connection, which the thread that reads it finds).
void connection_hub::offer(int fd) {
    bool retried = false;
    {
        std::lock_guard lock{m_mutex};
        const auto c = m_connections.find(fd);
        if (c == m_connections.end()) return;
        c->second.idle = false;
        retried = c->second.retried;
    }
    m_queue.offer({fd, retried, std::chrono::steady_clock::now()});
}

void connection_hub::give_back(int fd) {
    std::lock_guard lock{m_mutex};
    const auto c = m_connections.find(fd);
    if (c == m_connections.end()) return;
    c->second.idle = true;
    if (!watch_connection(m_epoll_fd, fd, EPOLL_CTL_MOD)) {
        m_connections.erase(c);
        close(fd);
    }
}

void connection_hub::close_connection(int fd) {
    // Forgotten before it is closed, under the lock: an accept that gets the number again finds it free.
    std::lock_guard lock{m_mutex};
    m_connections.erase(fd);
    close(fd);
}

// Waits up to timeout_ms (-1: for ever) and handles what came. false: stop() ran.
bool connection_hub::serve_events(int timeout_ms) {
    epoll_event ready[64];
    const int n = epoll_wait(m_epoll_fd, ready, 64, timeout_ms);
    for (int i = 0; i < n; ++i) {
        const int fd = ready[i].data.fd;
        if (fd == m_stop_fd) {
            if (!m_stopping) {
                for (const int l : {m_sockets.main_fd, m_sockets.retry_fd}) {
                    if (l >= 0) epoll_ctl(m_epoll_fd, EPOLL_CTL_DEL, l, nullptr);
                }
            }
            m_stopping = true;
        } else if (fd == m_sockets.retry_fd || fd == m_sockets.main_fd) {
            // A request sent again has waited once already: the retry socket goes first.
            if (!m_stopping) accept_from(fd, fd == m_sockets.retry_fd);
        } else {
            offer(fd);
        }
    }
    return !m_stopping;
}

// Idle connections end: each reads as closed, and the thread that takes it closes it.
void connection_hub::shut_down_idle() {
    std::lock_guard lock{m_mutex};
    for (const auto& [fd, c] : m_connections) {
        if (c.idle) shutdown(fd, SHUT_RDWR);
    }
}

std::size_t connection_hub::open_connections() {
    std::lock_guard lock{m_mutex};
    return m_connections.size();
}

// After a stop, kept connections serve on until nginx closes them (its upstream keepalive_timeout
// and keepalive_time bound that, see nginx/keeper-upstream.conf). Past the drain time, idle ones
// are shut down; busy ones finish first. (A request nginx sends on one just then would get 502;
// nginx closes its connections well before.)
void connection_hub::run(std::chrono::seconds drain) {
    while (serve_events(-1)) {
    }
    const auto deadline = std::chrono::steady_clock::now() + drain;
    while (open_connections() > 0) {
        if (std::chrono::steady_clock::now() >= deadline) shut_down_idle();
        serve_events(100);
    }
}

}  // namespace keeper::fcgi
