#include "connection_pool.hpp"

#include <pqxx/pqxx>

namespace keeper::db {

connection_pool::connection_pool(std::string conninfo, std::size_t size, preparer prepare)
    : m_conninfo(std::move(conninfo)), m_prepare(std::move(prepare)), m_slots(size == 0 ? 1 : size) {}

connection_pool::~connection_pool() = default;

connection_pool::lease connection_pool::acquire() {
    std::unique_lock lock{m_mutex};
    while (true) {
        // The most recently used free slot first: its connection is open and warm.
        for (std::size_t i = m_slots.size(); i-- > 0;) {
            if (!m_slots[i].in_use && m_slots[i].conn) {
                m_slots[i].in_use = true;
                return lease{*this, i};
            }
        }
        for (std::size_t i = 0; i < m_slots.size(); ++i) {
            if (!m_slots[i].in_use) {
                m_slots[i].in_use = true;
                return lease{*this, i};
            }
        }
        m_freed.wait(lock);
    }
}

void connection_pool::release(std::size_t index) {
    std::unique_ptr<pqxx::connection> dead;  // closed outside the lock
    {
        std::lock_guard lock{m_mutex};
        auto& s = m_slots[index];
        if (s.broken) {
            dead = std::move(s.conn);
            s.broken = false;
        }
        s.in_use = false;
    }
    m_freed.notify_one();
}

connection_pool::lease::~lease() {
    if (m_pool) m_pool->release(m_slot);
}

pqxx::connection& connection_pool::lease::connection() {
    // The slot is ours alone while leased: no lock needed to read or fill it.
    auto& s = m_pool->m_slots[m_slot];
    if (s.conn && s.conn->is_open()) return *s.conn;
    s.conn.reset();
    auto conn = std::make_unique<pqxx::connection>(m_pool->m_conninfo);
    m_pool->m_prepare(*conn);
    s.conn = std::move(conn);
    return *s.conn;
}

void connection_pool::lease::mark_broken() {
    if (m_pool) m_pool->m_slots[m_slot].broken = true;
}

}  // namespace keeper::db
