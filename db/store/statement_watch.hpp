#pragma once
// Ends a statement still running at its call's deadline. PostgreSQL's statement_timeout cannot:
// it starts again with every statement, and it does not cover a commit's wait for the synchronous
// standby (docs/design.md, "One deadline per call"). One thread per worker process watches every
// statement in flight. At the statement's cancel point it sends PostgreSQL a cancel request: a
// running statement rolls back (SQLSTATE 57014), and a commit waiting for the standby stops
// waiting, committed on the primary only. At the deadline itself it shuts the connection's socket,
// so a call whose server no longer answers at all is still answered in time.
#include <atomic>
#include <condition_variable>
#include <list>
#include <mutex>
#include <optional>
#include <thread>

#include <pqxx/connection>

#include "core/domain/deadline.hpp"

namespace keeper::db {

class statement_watch {
    struct entry;

public:
    statement_watch();
    ~statement_watch();
    statement_watch(const statement_watch&) = delete;
    statement_watch& operator=(const statement_watch&) = delete;

    // Watches conn while alive: a cancel request at cancel_at, the socket shut at cut_at. The
    // connection must outlive the guard.
    class guard {
    public:
        guard(statement_watch& watch, pqxx::connection& conn, core::deadline cancel_at, core::deadline cut_at);
        ~guard();
        guard(const guard&) = delete;
        guard& operator=(const guard&) = delete;

        // The statement was still running at its cancel point: whatever it answered, it was
        // interrupted (a commit it made may be on the primary only).
        bool interrupted() const;

    private:
        statement_watch& m_watch;
        std::list<entry>::iterator m_entry;
    };

private:
    struct entry {
        pqxx::connection* conn;
        core::deadline cancel_at;
        core::deadline cut_at;
        // Written by the watch thread under m_mutex; read by the guard's thread without it, once
        // its statement has answered.
        std::atomic<bool> cancelled = false;
        std::atomic<bool> cut = false;
        bool busy = false;  // a cancel request is on its way: the guard waits before it leaves
    };

    void run();
    // The earliest time something is due; nullopt when nothing is watched.
    std::optional<core::deadline> next_due() const;

    mutable std::mutex m_mutex;
    std::condition_variable m_changed;
    std::list<entry> m_entries;  // guarded by m_mutex
    bool m_stopping = false;     // guarded by m_mutex
    // Until when the thread sleeps (guarded by m_mutex): a statement is only worth waking it for
    // when it is due earlier, so under load, with statements always in flight, none wakes it.
    core::deadline::clock::time_point m_sleeps_until = core::deadline::clock::time_point::max();
    std::jthread m_thread;       // last: started once the rest is ready
};

}  // namespace keeper::db
