#include "connection_hub.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <stdexcept>
#include <iterator>
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

// Every ring of an eventfd so far (none: it was not rung).
void take_rings(int event_fd) {
    std::uint64_t rings = 0;
    [[maybe_unused]] const auto got = read(event_fd, &rings, sizeof rings);
}

// Edge-triggered: nginx sends a connection's next request only after it read the answer to the
// last, so each request is one edge, and the connection needs no re-arming after each answer (one
// system call a request fewer than a one-shot registration). An edge whose bytes were read by then
// is not reported: epoll_wait polls each ready connection again before it reports it.
bool watch_connection(int epoll_fd, int fd, std::uint32_t generation, int op) {
    epoll_event e{};
    e.events = EPOLLIN | EPOLLET;
    e.data.u64 = tag_of(fd, generation);
    return epoll_ctl(epoll_fd, op, fd, &e) == 0;
}

// A connection from one set to another; registered there, it is reported at once if a request
// (or nginx's close) is already waiting on it.
bool move_connection(int from, int to, int fd, std::uint32_t generation) {
    epoll_ctl(from, EPOLL_CTL_DEL, fd, nullptr);
    return watch_connection(to, fd, generation, EPOLL_CTL_ADD);
}

std::uint32_t generation_of(std::uint64_t tag) { return static_cast<std::uint32_t>(tag >> 32); }
int fd_of(std::uint64_t tag) { return static_cast<int>(tag & 0xffffffffu); }

}  // namespace

connection_hub::connection_hub(listen_sockets sockets, admission_queue& queue, int threads)
    : m_sockets(sockets),
      m_queue(queue),
      m_stop_fd(eventfd(0, EFD_CLOEXEC)),
      m_done_fd(eventfd(0, EFD_CLOEXEC)),
      m_epoll_fd(epoll_create1(EPOLL_CLOEXEC)) {
    bool ok = m_stop_fd >= 0 && m_done_fd >= 0 && m_epoll_fd >= 0 && watch_readable(m_epoll_fd, m_stop_fd);
    for (int i = 0; i < threads && ok; ++i) {
        auto& t = *m_threads.emplace_back(std::make_unique<thread_set>());
        t.epoll_fd = epoll_create1(EPOLL_CLOEXEC);
        t.wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        ok = t.epoll_fd >= 0 && t.wake_fd >= 0 && watch_readable(t.epoll_fd, t.wake_fd) &&
             watch_readable(t.epoll_fd, m_done_fd);
    }
    // EPOLLEXCLUSIVE may still wake more than one process: non-blocking, accept() then says EAGAIN
    // instead of blocking where a stop cannot reach. (The flag is on the sockets all workers share;
    // all their users are keeper workers.)
    for (const int fd : {m_sockets.main_fd, m_sockets.retry_fd}) {
        if (fd < 0 || !ok) continue;
        const int flags = fcntl(fd, F_GETFL);
        ok = flags >= 0 && fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0 && watch_listening(fd);
    }
    if (!ok) {
        close_own_fds();
        throw std::runtime_error("cannot wait on the listening socket");
    }
}

connection_hub::~connection_hub() {
    for (const auto& [fd, c] : m_connections) close(fd);
    close_own_fds();
}

void connection_hub::close_own_fds() {
    for (const auto& t : m_threads) {
        for (const int fd : {t->epoll_fd, t->wake_fd}) {
            if (fd >= 0) close(fd);
        }
    }
    for (const int fd : {m_stop_fd, m_done_fd, m_epoll_fd}) {
        if (fd >= 0) close(fd);
    }
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
// EAGAIN: another process took the rest; ECONNABORTED and friends: the peer gave up.
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
        m_connections[fd] = {.retried = retried, .idle = true, .rung = false, .owner = -1, .generation = generation};
        if (!watch_connection(m_epoll_fd, fd, generation, EPOLL_CTL_ADD)) {
            m_connections.erase(fd);
            close(fd);
        }
    }
    if (accepted > 0 && epoll_ctl(m_epoll_fd, EPOLL_CTL_DEL, listen_fd, nullptr) == 0) watch_listening(listen_fd);
}

// A request arrived on fd (or nginx closed it, which the thread that reads it finds): busy now.
// An edge the watcher takes on a busy connection (the rest of a request its reader is still
// reading, or nginx closing it) is remembered, and looked at again when the connection is given back.
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

void connection_hub::set_idle(int thread, bool idle) {
    std::lock_guard lock{m_mutex};
    auto& t = *m_threads[static_cast<std::size_t>(thread)];
    if (std::exchange(t.idle, idle) == idle) return;
    if (idle) {
        m_idle.push_back(thread);
    } else {
        std::erase(m_idle, thread);
    }
}

// The latest idle thread that owns no connection, else the latest idle one (which gives its
// connection back to take the request), is rung: requests queued, as many threads rung.
void connection_hub::ring_idle_thread() {
    std::lock_guard lock{m_mutex};
    if (m_idle.empty()) return;
    auto chosen = std::find_if(m_idle.rbegin(), m_idle.rend(),
                               [&](int i) { return m_threads[static_cast<std::size_t>(i)]->owned < 0; });
    if (chosen == m_idle.rend()) chosen = m_idle.rbegin();
    auto& t = *m_threads[static_cast<std::size_t>(*chosen)];
    m_idle.erase(std::next(chosen).base());
    t.idle = false;
    signal(t.wake_fd);
}

// `thread` takes a queued request: the connection it owns goes back to the watcher's set, where a
// request on it is not left waiting behind this one.
void connection_hub::release(int thread, int keep_fd) {
    std::lock_guard lock{m_mutex};
    auto& t = *m_threads[static_cast<std::size_t>(thread)];
    if (t.owned < 0 || t.owned == keep_fd) return;
    const int fd = std::exchange(t.owned, -1);
    const auto c = m_connections.find(fd);
    if (c == m_connections.end()) return;
    c->second.owner = -1;
    if (!move_connection(t.epoll_fd, m_epoll_fd, fd, c->second.generation)) {
        m_connections.erase(c);
        close(fd);
    }
}

// The watcher's: a request on a connection nobody owns goes to the admission queue, and a thread
// is rung for it; while every thread is busy the queue may refuse it instead (to the refuser).
void connection_hub::offer(std::uint64_t tag) {
    waiting_request r;
    if (!claim(fd_of(tag), generation_of(tag), &r)) return;
    if (m_queue.offer(r, any_idle())) ring_idle_thread();
}

bool connection_hub::any_idle() {
    std::lock_guard lock{m_mutex};
    return !m_idle.empty();
}

void connection_hub::begin_stop() {
    if (m_stopping.exchange(true)) return;
    for (const int fd : {m_sockets.main_fd, m_sockets.retry_fd, m_stop_fd}) {
        if (fd >= 0) epoll_ctl(m_epoll_fd, EPOLL_CTL_DEL, fd, nullptr);
    }
}

std::optional<waiting_request> connection_hub::next_request(int thread) {
    const auto& t = *m_threads[static_cast<std::size_t>(thread)];
    while (!m_done) {
        // Idle first, then the queue: a request the watcher queues after this thread looked is
        // either seen here or rung on the thread's eventfd (the watcher rings an idle thread after it queues).
        set_idle(thread, true);
        if (auto r = m_queue.try_take()) {
            set_idle(thread, false);
            release(thread, r->fd);
            return r;
        }
        epoll_event e{};
        const int n = epoll_wait(t.epoll_fd, &e, 1, 1000);
        set_idle(thread, false);
        if (n != 1) continue;
        const int fd = fd_of(e.data.u64);
        if (fd == m_done_fd) return std::nullopt;
        if (fd == t.wake_fd) {
            take_rings(t.wake_fd);
            continue;
        }
        waiting_request r;
        if (claim(fd, generation_of(e.data.u64), &r)) return r;
    }
    return std::nullopt;
}

void connection_hub::give_back(int fd, int thread) {
    std::lock_guard lock{m_mutex};
    const auto c = m_connections.find(fd);
    if (c == m_connections.end()) return;
    auto& conn = c->second;
    conn.idle = true;
    // In its owner's set, where only its owner waits: whatever came meanwhile is reported there.
    if (conn.owner >= 0) return;
    bool kept = true;
    if (thread >= 0 && m_threads[static_cast<std::size_t>(thread)]->owned < 0) {
        auto& t = *m_threads[static_cast<std::size_t>(thread)];
        kept = move_connection(m_epoll_fd, t.epoll_fd, fd, conn.generation);
        conn.owner = thread;
        conn.rung = false;
        t.owned = fd;
    } else if (std::exchange(conn.rung, false)) {
        // Rung while busy: registered again, which reports it at once if it is readable now (a
        // request that came before this, or nginx's close), and not if its reader took every byte.
        kept = watch_connection(m_epoll_fd, fd, conn.generation, EPOLL_CTL_MOD);
    }
    if (!kept) forget_locked(fd);
}

void connection_hub::close_connection(int fd) {
    // Forgotten before it is closed, under the lock: an accept that gets the number again finds it free.
    std::lock_guard lock{m_mutex};
    forget_locked(fd);
}

void connection_hub::forget_locked(int fd) {
    const auto c = m_connections.find(fd);
    if (c != m_connections.end() && c->second.owner >= 0)
        m_threads[static_cast<std::size_t>(c->second.owner)]->owned = -1;
    if (c != m_connections.end()) m_connections.erase(c);
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

// The watcher accepts, and offers the requests on connections nobody owns: queued for a thread, or
// refused at once. After a stop, kept connections serve on until nginx closes them (its upstream
// keepalive_timeout and keepalive_time bound that, see nginx/keeper-upstream.conf). Past the drain
// time, idle ones are shut down; busy ones finish first. (A request nginx sends on one just then
// would get 502; nginx closes its connections well before.)
void connection_hub::watch(std::chrono::seconds drain) {
    std::optional<std::chrono::steady_clock::time_point> drain_ends;
    while (true) {
        epoll_event ready[16];
        const int n = epoll_wait(m_epoll_fd, ready, 16, 100);
        for (int i = 0; i < n; ++i) {
            const int fd = fd_of(ready[i].data.u64);
            if (fd == m_stop_fd) {
                begin_stop();
            } else if (fd == m_sockets.main_fd || fd == m_sockets.retry_fd) {
                if (!m_stopping) accept_from(fd, fd == m_sockets.retry_fd);
            } else {
                offer(ready[i].data.u64);
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
