#pragma once
// Ends a statement still running at its call's deadline. PostgreSQL's statement_timeout cannot:
// it starts again with every statement, and it does not cover a commit's wait for the synchronous
// standby (docs/design.md, "One deadline per call"). One thread per worker process watches every
// statement in flight. At the statement's cancel point it has PostgreSQL sent a cancel request: a
// running statement rolls back (SQLSTATE 57014), and a commit waiting for the standby stops
// waiting, committed on the primary only. At the deadline itself it shuts the connection's socket,
// so a call whose server no longer answers at all is still answered in time.
// A cancel request is a connection of its own to the server, which libpq 15 makes without a
// timeout: each goes out on a thread of its own, holding the connection it cancels, so that no
// cancel delays another statement's cut, and the call never waits for its cancel to arrive. A
// call whose statement was interrupted closes its connection (statement_lease.hpp): a cancel
// still on its way can then only reach a server process that is ending, never another call's.
#include <atomic>
#include <condition_variable>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include <pqxx/connection>

#include "core/domain/deadline.hpp"

namespace keeper::db {

class statement_watch {
    struct entry;

public:
    // At most this many cancel requests on their way at once; past it, a statement is left to its
    // cut at the deadline (a server that does not take cancels in time is most likely gone).
    static constexpr int cancels_in_flight_limit = 16;

    statement_watch();
    ~statement_watch();
    statement_watch(const statement_watch&) = delete;
    statement_watch& operator=(const statement_watch&) = delete;

    // Watches conn while alive: a cancel request at cancel_at, the socket shut at cut_at.
    class guard {
    public:
        guard(statement_watch& watch, std::shared_ptr<pqxx::connection> conn, core::deadline cancel_at,
              core::deadline cut_at);
        ~guard();
        guard(const guard&) = delete;
        guard& operator=(const guard&) = delete;

        // The statement was still running at its cancel point: whatever it answered, it was
        // interrupted (a commit it made may be on the primary only).
        bool interrupted() const;
        // Stops watching, and says whether a cancel or the cut came first after all: a
        // connection so interrupted must not serve another call (a cancel may be on its way).
        bool finish();

    private:
        statement_watch& m_watch;
        std::list<entry>::iterator m_entry;
        bool m_finished = false;
        bool m_interrupted = false;
    };

private:
    struct entry {
        std::shared_ptr<pqxx::connection> conn;
        core::deadline cancel_at;
        core::deadline cut_at;
        // Written by the watch thread under m_mutex; read by the guard's thread without it, once
        // its statement has answered.
        std::atomic<bool> cancelled = false;
        std::atomic<bool> cut = false;
    };

    void run();
    // The earliest time something is due; nullopt when nothing is watched.
    std::optional<core::deadline> next_due() const;
    // Sends conn's server a cancel request from a thread of its own.
    void send_cancel(std::shared_ptr<pqxx::connection> conn);

    mutable std::mutex m_mutex;
    std::condition_variable m_changed;
    std::list<entry> m_entries;  // guarded by m_mutex
    bool m_stopping = false;     // guarded by m_mutex
    // Until when the thread sleeps (guarded by m_mutex): a statement is only worth waking it for
    // when it is due earlier, so under load, with statements always in flight, none wakes it.
    core::deadline::clock::time_point m_sleeps_until = core::deadline::clock::time_point::max();
    // Shared with the cancel threads, which may outlive the watch.
    std::shared_ptr<std::atomic<int>> m_cancels = std::make_shared<std::atomic<int>>(0);
    std::jthread m_thread;  // last: started once the rest is ready
};

}  // namespace keeper::db
