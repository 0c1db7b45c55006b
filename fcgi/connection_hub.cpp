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
#include <utility>

namespace keeper::fcgi {
namespace {

// A connection's events name it and its generation, so that an event taken just before its
// connection closed cannot claim a later connection that got the same number.
std::uint64_t tag_of(int fd, std::uint32_t generation) {
    return (std::uint64_t{generation} << 32) | static_cast<std::uint32_t>(fd);
}

bool watch_readable(int epoll_fd, int fd) {
    epoll_event e{};
    e.events = EPOLLIN;
    e.data.u64 = tag_of(fd, 0);
    return epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &e) == 0;
}

void signal(int event_fd) {
    const std::uint64_t one = 1;
    [[maybe_unused]] const auto n = write(event_fd, &one, sizeof one);
}

// One ring of a semaphore eventfd (none left: another thread took it).
void take_one(int event_fd) {
    std::uint64_t one = 0;
    [[maybe_unused]] const auto got = read(event_fd, &one, sizeof one);
}

// Edge-triggered, registered once: nginx sends a connection's next request only after it read the
// answer to the last, so each request is one edge and wakes one thread, and the connection needs
// no re-arming after each answer (one system call a request fewer than a one-shot registration).
bool watch_connection(int epoll_fd, int fd, std::uint32_t generation, int op) {
    epoll_event e{};
    e.events = EPOLLIN | EPOLLET;
    e.data.u64 = tag_of(fd, generation);
    return epoll_ctl(epoll_fd, op, fd, &e) == 0;
}

}  // namespace

connection_hub::connection_hub(listen_sockets sockets, admission_queue& queue)
    : m_sockets(sockets),
      m_queue(queue),
      m_stop_fd(eventfd(0, EFD_CLOEXEC)),
      m_wake_fd(eventfd(0, EFD_CLOEXEC | EFD_SEMAPHORE | EFD_NONBLOCK)),
      m_done_fd(eventfd(0, EFD_CLOEXEC)),
      m_epoll_fd(epoll_create1(EPOLL_CLOEXEC)) {
    bool ok = m_stop_fd >= 0 && m_wake_fd >= 0 && m_done_fd >= 0 && m_epoll_fd >= 0;
    for (const int fd : {m_stop_fd, m_wake_fd, m_done_fd}) ok = ok && watch_readable(m_epoll_fd, fd);
    // EPOLLEXCLUSIVE may still wake more than one process: non-blocking, accept() then says EAGAIN
    // instead of blocking where a stop cannot reach. (The flag is on the sockets all workers share;
    // all their users are keeper workers.)
    for (const int fd : {m_sockets.main_fd, m_sockets.retry_fd}) {
        if (fd < 0 || !ok) continue;
        const int flags = fcntl(fd, F_GETFL);
        ok = flags >= 0 && fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0 && watch_listening(fd);
    }
    if (!ok) {
        for (const int fd : {m_stop_fd, m_wake_fd, m_done_fd, m_epoll_fd}) {
            if (fd >= 0) close(fd);
        }
        throw std::runtime_error("cannot wait on the listening socket");
    }
}

connection_hub::~connection_hub() {
    for (const auto& [fd, c] : m_connections) close(fd);
    for (const int fd : {m_stop_fd, m_wake_fd, m_done_fd, m_epoll_fd}) close(fd);
}

void connection_hub::stop() { signal(m_stop_fd); }

bool connection_hub::watch_listening(int listen_fd) {
    epoll_event e{};
    e.events = EPOLLIN | EPOLLEXCLUSIVE;
    e.data.u64 = tag_of(listen_fd, 0);
    return epoll_ctl(m_epoll_fd, EPOLL_CTL_ADD, listen_fd, &e) == 0;
}

// A few connections, then to the back of the socket's wait queue: the next go to another process
// first, so every process's database connections share the load. A few rather than one: when a
// burst of clients arrives at once (a push to every phone, the bench's 2 048 connections opening
// together), nginx opens a connection to the pool for each request, and one accept per wake-up,
// each followed by the listening socket's removal and return, drained the backlog slowly enough
// that the burst's refusals waited there (bench/history.md, "What each change bought").
// EAGAIN: another process (or thread) took the rest; ECONNABORTED and friends: the peer gave up.
constexpr int accepts_per_wakeup = 8;

void connection_hub::accept_from(int listen_fd, bool retried) {
    int accepted = 0;
    for (; accepted < accepts_per_wakeup; ++accepted) {
        const int fd = accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EMFILE || errno == ENFILE) poll(nullptr, 0, 10);  // out of fds: let some close
            break;
        }
        std::lock_guard lock{m_mutex};
        const auto generation = ++m_generation;
        m_connections[fd] = {.retried = retried, .idle = true, .rung = false, .generation = generation};
        if (!watch_connection(m_epoll_fd, fd, generation, EPOLL_CTL_ADD)) {
            m_connections.erase(fd);
            close(fd);
        }
    }
    if (accepted > 0 && epoll_ctl(m_epoll_fd, EPOLL_CTL_DEL, listen_fd, nullptr) == 0) watch_listening(listen_fd);
}

// A request arrived on fd (or nginx closed it, which the thread that reads it finds): busy now.
// An edge on a busy connection (the rest of a request its reader is still reading, or nginx
// closing it) is remembered, and looked at again when the connection is given back.
bool connection_hub::claim(int fd, std::uint32_t generation, waiting_request* out) {
    std::lock_guard lock{m_mutex};
    const auto c = m_connections.find(fd);
    if (c == m_connections.end() || c->second.generation != generation) return false;
    if (!c->second.idle) {
        c->second.rung = true;
        return false;
    }
    c->second.idle = false;
    *out = {.fd = fd, .retried = c->second.retried, .ready_at = std::chrono::steady_clock::now()};
    return true;
}

void connection_hub::begin_stop() {
    if (m_stopping.exchange(true)) return;
    for (const int fd : {m_sockets.main_fd, m_sockets.retry_fd, m_stop_fd}) {
        if (fd >= 0) epoll_ctl(m_epoll_fd, EPOLL_CTL_DEL, fd, nullptr);
    }
    std::lock_guard gate{m_gate_mutex};
    m_all_busy.notify_all();  // the watcher drains from now on
}

connection_hub::seen connection_hub::handle(std::uint64_t tag, waiting_request* out) {
    const auto fd = static_cast<int>(tag & 0xffffffffu);
    if (fd == m_stop_fd) {
        begin_stop();
    } else if (fd == m_sockets.main_fd || fd == m_sockets.retry_fd) {
        if (!m_stopping) accept_from(fd, fd == m_sockets.retry_fd);
    } else if (fd == m_wake_fd) {
        return seen::wake;
    } else if (fd == m_done_fd) {
        return seen::done;
    } else if (claim(fd, static_cast<std::uint32_t>(tag >> 32), out)) {
        return seen::request;
    }
    return seen::nothing;
}

void connection_hub::set_idle(int delta) {
    std::lock_guard gate{m_gate_mutex};
    m_idle += delta;
    if (m_idle == 0) m_all_busy.notify_one();
}

std::optional<waiting_request> connection_hub::next_request() {
    while (!m_done) {
        // Idle first, then the queue: a request the watcher queues after this thread looked is
        // either seen here or rung on the wake-up eventfd (the watcher reads m_idle after it queues).
        set_idle(1);
        if (auto r = m_queue.try_take()) {
            set_idle(-1);
            return r;
        }
        epoll_event e{};
        const int n = epoll_wait(m_epoll_fd, &e, 1, 1000);
        set_idle(-1);
        if (n != 1) continue;
        waiting_request r;
        switch (handle(e.data.u64, &r)) {
            case seen::request:
                // Requests queued before it have waited longer: it joins them (or is refused),
                // and the loop takes the oldest.
                if (m_queue.waiting() == 0) return r;
                m_queue.offer(r);
                break;
            case seen::wake:
                take_one(m_wake_fd);
                break;
            case seen::done:
                return std::nullopt;
            case seen::nothing:
                break;
        }
    }
    return std::nullopt;
}

void connection_hub::give_back(int fd) {
    std::lock_guard lock{m_mutex};
    const auto c = m_connections.find(fd);
    if (c == m_connections.end()) return;
    c->second.idle = true;
    // Rung while busy: registered again, which reports it at once if it is readable now (a
    // request that came before this, or nginx's close), and not if its reader took every byte.
    if (std::exchange(c->second.rung, false) &&
        !watch_connection(m_epoll_fd, fd, c->second.generation, EPOLL_CTL_MOD)) {
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

// While every serving thread is busy (and through a drain), requests that arrive go to the
// admission queue: queued for the next thread to finish, or refused at once. After a stop, kept
// connections serve on until nginx closes them (its upstream keepalive_timeout and keepalive_time
// bound that, see nginx/keeper-upstream.conf). Past the drain time, idle ones are shut down; busy
// ones finish first. (A request nginx sends on one just then would get 502; nginx closes its
// connections well before.)
void connection_hub::watch(std::chrono::seconds drain) {
    std::optional<std::chrono::steady_clock::time_point> drain_ends;
    while (true) {
        bool someone_idle = false;
        {
            std::unique_lock gate{m_gate_mutex};
            m_all_busy.wait_for(gate, std::chrono::milliseconds{100}, [&] { return m_idle == 0 || m_stopping; });
            someone_idle = m_idle > 0;
        }
        if (someone_idle && !m_stopping) continue;
        epoll_event ready[16];
        const int n = epoll_wait(m_epoll_fd, ready, 16, 100);
        for (int i = 0; i < n; ++i) {
            waiting_request r;
            const auto what = handle(ready[i].data.u64, &r);
            if (what == seen::request && m_queue.offer(r)) {
                std::lock_guard gate{m_gate_mutex};
                if (m_idle > 0) signal(m_wake_fd);
            } else if (what == seen::wake) {
                // Left to an idle thread if there is one; else a stale ring (the finishing
                // threads took the queue), which would wake this loop for ever.
                std::lock_guard gate{m_gate_mutex};
                if (m_idle == 0) take_one(m_wake_fd);
            }
        }
        if (!m_stopping) continue;
        const auto now = std::chrono::steady_clock::now();
        if (!drain_ends) drain_ends = now + drain;
        if (now >= *drain_ends) shut_down_idle();
        if (open_connections() == 0) break;
    }
    m_done = true;
    signal(m_done_fd);
}

}  // namespace keeper::fcgi
