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
#include <limits>
#include <stdexcept>

namespace keeper::fcgi {
namespace {

constexpr std::uint64_t stop_tag = std::numeric_limits<std::uint64_t>::max();  // m_stop_fd in the watcher's set

bool watch_fd(int epoll_fd, int fd, std::uint32_t events) {
    epoll_event e{};
    e.events = events;
    e.data.fd = fd;
    return epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &e) == 0;
}

bool watch_tagged(int epoll_fd, int fd, std::uint32_t events, std::uint64_t tag) {
    epoll_event e{};
    e.events = events;
    e.data.u64 = tag;
    return epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &e) == 0;
}

void signal(int event_fd) {
    const std::uint64_t one = 1;
    [[maybe_unused]] const auto n = write(event_fd, &one, sizeof one);
}

void take_one(int event_fd) {
    std::uint64_t count = 0;
    [[maybe_unused]] const auto got = read(event_fd, &count, sizeof count);
}

std::chrono::steady_clock::rep now_ticks() { return std::chrono::steady_clock::now().time_since_epoch().count(); }

}  // namespace

connection_hub::connection_hub(listen_sockets sockets, admission_queue& queue, int lanes)
    : m_sockets(sockets),
      m_queue(queue),
      m_stop_fd(eventfd(0, EFD_CLOEXEC)),
      m_done_fd(eventfd(0, EFD_CLOEXEC)),
      m_lanes_fd(epoll_create1(EPOLL_CLOEXEC)) {
    bool ok =
        m_stop_fd >= 0 && m_done_fd >= 0 && m_lanes_fd >= 0 && watch_tagged(m_lanes_fd, m_stop_fd, EPOLLIN, stop_tag);
    // EPOLLEXCLUSIVE may still wake more than one lane or process: non-blocking, accept() then says
    // EAGAIN instead of blocking where a stop cannot reach. (The flag is on the sockets all workers
    // share; all their users are keeper workers.)
    for (const int fd : {m_sockets.main_fd, m_sockets.retry_fd}) {
        if (fd < 0 || !ok) continue;
        const int flags = fcntl(fd, F_GETFL);
        ok = flags >= 0 && fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0;
    }
    for (int i = 0; i < lanes && ok; ++i) {
        auto& l = *m_lanes.emplace_back(std::make_unique<lane>());
        l.epoll_fd = epoll_create1(EPOLL_CLOEXEC);
        l.wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        ok = l.epoll_fd >= 0 && l.wake_fd >= 0 && watch_fd(l.epoll_fd, l.wake_fd, EPOLLIN) &&
             watch_fd(l.epoll_fd, m_done_fd, EPOLLIN) &&
             watch_tagged(m_lanes_fd, l.epoll_fd, EPOLLIN | EPOLLET, static_cast<std::uint64_t>(i));
        for (const int fd : {m_sockets.main_fd, m_sockets.retry_fd}) {
            if (fd >= 0 && ok) ok = watch_listening(l.epoll_fd, fd);
        }
    }
    if (!ok) {
        close_all();
        throw std::runtime_error("cannot wait on the listening socket");
    }
}

connection_hub::~connection_hub() { close_all(); }

void connection_hub::close_all() {
    for (const auto& [fd, c] : m_connections) close(fd);
    for (const auto& l : m_lanes) {
        for (const int fd : {l->epoll_fd, l->wake_fd}) {
            if (fd >= 0) close(fd);
        }
    }
    for (const int fd : {m_stop_fd, m_done_fd, m_lanes_fd}) {
        if (fd >= 0) close(fd);
    }
}

void connection_hub::stop() { signal(m_stop_fd); }

bool connection_hub::watch_listening(int epoll_fd, int listen_fd) {
    return watch_fd(epoll_fd, listen_fd, EPOLLIN | EPOLLEXCLUSIVE);
}

int connection_hub::fewest_owned() const {
    const auto least = std::min_element(m_lanes.begin(), m_lanes.end(),
                                        [](const auto& a, const auto& b) { return a->owned < b->owned; });
    return static_cast<int>(least - m_lanes.begin());
}

// Under m_mutex: fd waits for its requests in lane's set, level-triggered: it stays registered
// between requests, since only its owner waits in that set and the owner is busy while it serves.
bool connection_hub::register_in(int lane, int fd) {
    if (!watch_fd(m_lanes[lane]->epoll_fd, fd, EPOLLIN)) return false;
    ++m_lanes[lane]->owned;
    return true;
}

// A few connections, then to the back of the socket's wait queue: the next go to another lane or
// process first, so every process's database connections share the load. A few rather than one:
// when a burst of clients arrives at once (a push to every phone, the bench's 2 048 connections
// opening together), nginx opens a connection to the pool for each request, and one accept per
// wake-up, each followed by the listening socket's removal and return, drained the backlog slowly
// enough that the burst's refusals waited there (bench/history.md, "What each change bought").
// EAGAIN: another process (or lane) took the rest; ECONNABORTED and friends: the peer gave up.
constexpr int accepts_per_wakeup = 8;

void connection_hub::accept_from(int lane, int listen_fd, bool retried) {
    int accepted = 0;
    for (; accepted < accepts_per_wakeup; ++accepted) {
        const int fd = accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EMFILE || errno == ENFILE) poll(nullptr, 0, 10);  // out of fds: let some close
            break;
        }
        std::lock_guard lock{m_mutex};
        const int owner = fewest_owned();
        m_connections[fd] = {owner, retried, false};
        if (!register_in(owner, fd)) {
            m_connections.erase(fd);
            close(fd);
        }
    }
    const int set = m_lanes[lane]->epoll_fd;
    if (accepted > 0 && epoll_ctl(set, EPOLL_CTL_DEL, listen_fd, nullptr) == 0) watch_listening(set, listen_fd);
}

// A request arrived on fd, in its owner's lane (or nginx closed it, which the thread that reads it
// finds): busy now, unless another thread has it.
bool connection_hub::claim(int fd, waiting_request* out) {
    std::lock_guard lock{m_mutex};
    const auto c = m_connections.find(fd);
    if (c == m_connections.end() || c->second.busy) return false;
    c->second.busy = true;
    *out = {.fd = fd, .retried = c->second.retried, .ready_at = std::chrono::steady_clock::now()};
    return true;
}

// The watcher takes a request waiting in a busy lane: out of that lane's set, so that its owner
// never sees it, for whichever thread the admission queue gives it to.
bool connection_hub::take_over(int fd, int lane, waiting_request* out) {
    std::lock_guard lock{m_mutex};
    const auto c = m_connections.find(fd);
    if (c == m_connections.end() || c->second.busy || c->second.lane != lane) return false;
    epoll_ctl(m_lanes[lane]->epoll_fd, EPOLL_CTL_DEL, fd, nullptr);
    --m_lanes[lane]->owned;
    c->second.lane = -1;
    c->second.busy = true;
    *out = {.fd = fd, .retried = c->second.retried, .ready_at = std::chrono::steady_clock::now()};
    return true;
}

// To the admission queue: queued (and an idle lane woken to take it, if there is one) or refused.
void connection_hub::offer(const waiting_request& r) {
    if (!m_queue.offer(r)) return;
    for (const auto& l : m_lanes) {
        if (l->idle.load()) {
            signal(l->wake_fd);
            return;
        }
    }
}

bool connection_hub::every_lane_busy() const {
    return std::none_of(m_lanes.begin(), m_lanes.end(), [](const auto& l) { return l->idle.load(); });
}

void connection_hub::begin_stop() {
    if (m_stopping.exchange(true)) return;
    for (const auto& l : m_lanes) {
        for (const int fd : {m_sockets.main_fd, m_sockets.retry_fd}) {
            if (fd >= 0) epoll_ctl(l->epoll_fd, EPOLL_CTL_DEL, fd, nullptr);
        }
    }
    epoll_ctl(m_lanes_fd, EPOLL_CTL_DEL, m_stop_fd, nullptr);
}

connection_hub::seen connection_hub::handle(int fd, int lane, waiting_request* out) {
    if (fd == m_sockets.main_fd || fd == m_sockets.retry_fd) {
        if (!m_stopping) accept_from(lane, fd, fd == m_sockets.retry_fd);
    } else if (fd == m_lanes[lane]->wake_fd) {
        return seen::wake;
    } else if (fd == m_done_fd) {
        return seen::done;
    } else if (claim(fd, out)) {
        return seen::request;
    }
    return seen::nothing;
}

std::optional<waiting_request> connection_hub::next_request(int lane) {
    auto& l = *m_lanes[lane];
    while (!m_done) {
        // Idle first, then the queue: a request the watcher queues after this thread looked is
        // either seen here or rung on the lane's wake-up eventfd (the watcher reads `idle` after
        // it queues).
        l.idle.store(true);
        auto r = m_queue.try_take();
        const bool from_lane = !r;
        if (from_lane) {
            epoll_event e{};
            const int n = epoll_wait(l.epoll_fd, &e, 1, 1000);
            if (n == 1) {
                r.emplace();
                const auto what = handle(e.data.fd, lane, &*r);
                if (what == seen::done) return std::nullopt;
                if (what == seen::wake) take_one(l.wake_fd);
                if (what != seen::request) r.reset();
            }
        }
        l.busy_since.store(now_ticks());
        l.idle.store(false);
        if (!r) continue;
        // A request taken from the lane while others are queued has waited less than they have:
        // it joins them (or is refused), out of the lane, and the loop takes the oldest.
        if (from_lane && m_queue.waiting() > 0 && hand_over(r->fd)) {
            offer(*r);
            continue;
        }
        return r;
    }
    return std::nullopt;
}

// A request claimed in its owner's lane goes to the queue instead: out of the lane's set first, so
// that its owner does not see it again while another thread reads it.
bool connection_hub::hand_over(int fd) {
    std::lock_guard lock{m_mutex};
    const auto c = m_connections.find(fd);
    if (c == m_connections.end() || c->second.lane < 0) return c != m_connections.end();
    epoll_ctl(m_lanes[c->second.lane]->epoll_fd, EPOLL_CTL_DEL, fd, nullptr);
    --m_lanes[c->second.lane]->owned;
    c->second.lane = -1;
    return true;
}

void connection_hub::give_back(int fd, int lane) {
    std::lock_guard lock{m_mutex};
    const auto c = m_connections.find(fd);
    if (c == m_connections.end()) return;
    c->second.busy = false;
    if (c->second.lane >= 0) return;  // still in its owner's set
    const int to = lane >= 0 ? lane : fewest_owned();
    if (!register_in(to, fd)) {
        m_connections.erase(c);
        close(fd);
        return;
    }
    c->second.lane = to;
}

void connection_hub::close_connection(int fd) {
    // Forgotten before it is closed, under the lock: an accept that gets the number again finds it free.
    std::lock_guard lock{m_mutex};
    const auto c = m_connections.find(fd);
    if (c != m_connections.end()) {
        if (c->second.lane >= 0) --m_lanes[c->second.lane]->owned;
        m_connections.erase(c);
    }
    close(fd);
}

// Idle connections end: each reads as closed, and its owner closes it.
void connection_hub::shut_down_idle() {
    std::lock_guard lock{m_mutex};
    for (const auto& [fd, c] : m_connections) {
        if (!c.busy) shutdown(fd, SHUT_RDWR);
    }
}

std::size_t connection_hub::open_connections() {
    std::lock_guard lock{m_mutex};
    return m_connections.size();
}

// The requests waiting in a busy lane's set (and a new connection, if one came there), taken over.
void connection_hub::look_into(int lane) {
    if (m_lanes[lane]->idle.load()) return;  // its owner takes them
    epoll_event ready[16];
    const int n = epoll_wait(m_lanes[lane]->epoll_fd, ready, 16, 0);
    for (int i = 0; i < n; ++i) {
        const int fd = ready[i].data.fd;
        waiting_request r;
        if (fd == m_sockets.main_fd || fd == m_sockets.retry_fd) {
            if (!m_stopping) accept_from(lane, fd, fd == m_sockets.retry_fd);
        } else if (fd != m_done_fd && fd != m_lanes[lane]->wake_fd && take_over(fd, lane, &r)) {
            offer(r);
        }
    }
}

// While some lane is idle, the watcher looks every take_over_after into the lanes busy for longer
// than that; while every lane is busy (and through a drain), it waits on all of them, each request
// that arrives going to the admission queue: queued for the next thread to finish, or refused at
// once. After a stop, kept connections serve on until nginx closes them (its upstream
// keepalive_timeout and keepalive_time bound that, see nginx/keeper-upstream.conf). Past the drain
// time, idle ones are shut down; busy ones finish first. (A request nginx sends on one just then
// would get 502; nginx closes its connections well before.)
void connection_hub::watch(std::chrono::seconds drain) {
    std::optional<std::chrono::steady_clock::time_point> drain_ends;
    const auto period = static_cast<int>(take_over_after.count());
    while (true) {
        if (every_lane_busy()) {
            epoll_event ready[16];
            const int n = epoll_wait(m_lanes_fd, ready, 16, period);
            for (int i = 0; i < n; ++i) {
                if (ready[i].data.u64 == stop_tag) {
                    begin_stop();
                } else {
                    look_into(static_cast<int>(ready[i].data.u64));
                }
            }
        } else {
            pollfd stop{m_stopping ? -1 : m_stop_fd, POLLIN, 0};
            if (poll(&stop, 1, period) > 0) begin_stop();
            const auto late = now_ticks() - std::chrono::steady_clock::duration{take_over_after}.count();
            for (std::size_t i = 0; i < m_lanes.size(); ++i) {
                if (!m_lanes[i]->idle.load() && m_lanes[i]->busy_since.load() < late) look_into(static_cast<int>(i));
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
