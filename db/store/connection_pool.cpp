#include "db/store/connection_pool.hpp"

#include <poll.h>

#include <pqxx/pqxx>

namespace keeper::db {

connection_pool::connection_pool(std::string conninfo, std::size_t size, preparer prepare, database_gauges* gauges)
    // Room for every slot's opening plus as many given up by their calls.
    : m_opener(std::move(conninfo), std::move(prepare), 2 * (size == 0 ? 1 : size)),
      m_gauges(gauges),
      m_slots(size == 0 ? 1 : size) {}

connection_pool::~connection_pool() {
    for (const auto& s : m_slots) {
        if (s.conn) count(&database_gauges::connections_open, -1);
    }
}

void connection_pool::count(std::atomic<std::int64_t> database_gauges::*gauge, std::int64_t by) {
    if (m_gauges) (m_gauges->*gauge).fetch_add(by, std::memory_order_relaxed);
}

void connection_pool::count(std::atomic<std::uint64_t> database_gauges::*counter) {
    if (m_gauges) (m_gauges->*counter).fetch_add(1, std::memory_order_relaxed);
}

connection_pool::lease connection_pool::acquire(const core::deadline& until) {
    std::unique_lock lock{m_mutex};
    if (m_waiters.empty()) {
        // The most recently used free slot first: its connection is open and warm.
        std::size_t pick = no_slot;
        for (std::size_t i = 0; i < m_slots.size(); ++i) {
            if (!m_slots[i].in_use && (pick == no_slot || m_slots[i].conn)) pick = i;
        }
        if (pick != no_slot) {
            m_slots[pick].in_use = true;
            return lease{*this, pick};
        }
    }
    waiter me;
    m_waiters.push_back(&me);
    count(&database_gauges::calls_waiting, 1);
    const bool handed = me.handed.wait_until(lock, until.at(), [&] { return me.slot != no_slot; });
    count(&database_gauges::calls_waiting, -1);
    if (!handed) {
        std::erase(m_waiters, &me);  // under the lock: no release hands it a slot any more
        throw wait_expired();
    }
    return lease{*this, me.slot};
}

std::size_t connection_pool::waiting() {
    std::lock_guard lock{m_mutex};
    return m_waiters.size();
}

void connection_pool::release(std::size_t index) {
    std::shared_ptr<pqxx::connection> dead;  // closed outside the lock (or by a cancel still on its way)
    std::unique_lock lock{m_mutex};
    auto& s = m_slots[index];
    if (s.broken) {
        dead = std::move(s.conn);
        s.broken = false;
        if (dead) {
            count(&database_gauges::connections_open, -1);
            count(&database_gauges::connections_lost);
        }
    }
    if (m_waiters.empty()) {
        s.in_use = false;
        return;
    }
    waiter* next = m_waiters.front();  // the slot stays in use: handed over directly
    m_waiters.pop_front();
    next->slot = index;
    next->handed.notify_one();
}

connection_pool::lease::~lease() {
    if (m_pool) m_pool->release(m_slot);
}

namespace {

// An idle connection has nothing to read: if its socket is readable, the server has closed it or
// said why it is about to (a restart sends "terminating connection" first). Found before a call
// sends anything, such a connection is replaced, and the call goes out on a new one instead of
// failing with an outcome nobody knows.
bool closed_by_server(const pqxx::connection& conn) {
    pollfd p{conn.sock(), POLLIN, 0};
    return p.fd < 0 || poll(&p, 1, 0) != 0;
}

}  // namespace

pqxx::connection& connection_pool::lease::connection(const core::deadline& until) {
    // The slot is ours alone while leased: no lock needed to read or fill it.
    auto& s = m_pool->m_slots[m_slot];
    if (s.conn && s.conn->is_open() && !closed_by_server(*s.conn)) return *s.conn;
    if (s.conn) {
        s.conn.reset();
        m_pool->count(&database_gauges::connections_open, -1);
        m_pool->count(&database_gauges::connections_lost);
    }
    try {
        auto opened = m_pool->m_opener.open(until);
        s.identity = opened.identity;
        s.conn = std::move(opened.conn);
    } catch (...) {
        m_pool->count(&database_gauges::connect_failures);
        throw;
    }
    m_pool->count(&database_gauges::connections_open, 1);
    return *s.conn;
}

void connection_pool::lease::mark_broken() {
    if (m_pool) m_pool->m_slots[m_slot].broken = true;
}

std::shared_ptr<pqxx::connection> connection_pool::lease::shared() const { return m_pool->m_slots[m_slot].conn; }

const backend_identity& connection_pool::lease::identity() const { return m_pool->m_slots[m_slot].identity; }

}  // namespace keeper::db
