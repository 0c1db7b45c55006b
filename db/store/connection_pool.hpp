#pragma once
// A worker process's PostgreSQL connections, shared by its threads: a call borrows one for the
// length of its transaction and gives it back. Connections open on first use and again after one
// was lost (a lease marked broken), each with every statement prepared once, within the deadline
// of the call that opens it (connection_opening.hpp).
#include <condition_variable>
#include <deque>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include <pqxx/connection>

#include "db/store/backend_identity.hpp"
#include "db/store/connection_opening.hpp"
#include "core/domain/deadline.hpp"
#include "core/domain/store.hpp"
#include "db/store/database_gauges.hpp"

namespace keeper::db {

class connection_pool {
public:
    using preparer = connection_preparer;

    // gauges (may be null): connections open, calls waiting, connect failures, connections lost.
    connection_pool(std::string conninfo, std::size_t size, preparer prepare, database_gauges* gauges = nullptr);
    ~connection_pool();
    connection_pool(const connection_pool&) = delete;
    connection_pool& operator=(const connection_pool&) = delete;

    class lease {
    public:
        lease(connection_pool& pool, std::size_t slot) : m_pool(&pool), m_slot(slot) {}
        lease(lease&& other) noexcept : m_pool(std::exchange(other.m_pool, nullptr)), m_slot(other.m_slot) {}
        lease& operator=(lease&&) = delete;
        lease(const lease&) = delete;
        lease& operator=(const lease&) = delete;
        ~lease();

        // The slot's open connection, opened (and prepared) now if it was not. Throws
        // pqxx::broken_connection when the database cannot be reached before `until`.
        pqxx::connection& connection(const core::deadline& until);
        // The same connection, shared: a cancel request on its way keeps it open
        // (statement_watch.hpp). Call connection() first.
        std::shared_ptr<pqxx::connection> shared() const;
        // The connection is unusable (lost, or its state unknown): closed when given back.
        void mark_broken();
        // What the preparer returned for the slot's connection (kept after it broke; unknown
        // before one opened).
        const backend_identity& identity() const;

    private:
        connection_pool* m_pool;
        std::size_t m_slot;
    };

    // Waits until a connection is free, or until the deadline: then throws wait_expired (nothing
    // was sent). Waiters are served first come, first served: a freed connection is handed to the
    // longest waiter, so no call waits behind later ones.
    lease acquire(const core::deadline& until);

    struct wait_expired : core::not_applied {
        wait_expired() : core::not_applied("no database connection came free before the call's deadline") {}
    };

    // Calls waiting for a connection now.
    std::size_t waiting();

private:
    struct slot {
        std::shared_ptr<pqxx::connection> conn;
        backend_identity identity;
        bool broken = false;
        bool in_use = false;
    };

    struct waiter {
        std::condition_variable handed;
        std::size_t slot = no_slot;
    };
    static constexpr std::size_t no_slot = static_cast<std::size_t>(-1);

    void release(std::size_t index);

    void count(std::atomic<std::int64_t> database_gauges::*gauge, std::int64_t by);
    void count(std::atomic<std::uint64_t> database_gauges::*counter);

    connection_opener m_opener;
    database_gauges* m_gauges;
    std::mutex m_mutex;
    std::deque<waiter*> m_waiters;  // guarded by m_mutex; each lives on its waiting thread's stack
    std::vector<slot> m_slots;
};

}  // namespace keeper::db
