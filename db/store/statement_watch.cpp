#include "db/store/statement_watch.hpp"

#include <sys/socket.h>

#include <pqxx/except>

namespace keeper::db {

statement_watch::statement_watch() : m_thread([this] { run(); }) {}

statement_watch::~statement_watch() {
    {
        std::lock_guard lock{m_mutex};
        m_stopping = true;
    }
    m_changed.notify_all();
}

statement_watch::guard::guard(statement_watch& watch, std::shared_ptr<pqxx::connection> conn, core::deadline cancel_at,
                              core::deadline cut_at)
    : m_watch(watch) {
    bool sooner = false;
    {
        std::lock_guard lock{watch.m_mutex};
        m_entry = watch.m_entries.emplace(watch.m_entries.end(), std::move(conn), cancel_at, cut_at);
        sooner = cancel_at.at() < watch.m_sleeps_until;
    }
    if (sooner) watch.m_changed.notify_all();
}

statement_watch::guard::~guard() { finish(); }

bool statement_watch::guard::finish() {
    if (!m_finished) {
        std::lock_guard lock{m_watch.m_mutex};  // the watch thread decides under it: nothing comes later
        m_interrupted = m_entry->cancelled || m_entry->cut;
        m_watch.m_entries.erase(m_entry);
        m_finished = true;
    }
    return m_interrupted;
}

bool statement_watch::guard::interrupted() const {
    return m_finished ? m_interrupted : m_entry->cancelled || m_entry->cut;
}

std::optional<core::deadline> statement_watch::next_due() const {
    std::optional<core::deadline> due;
    for (const auto& e : m_entries) {
        if (e.cut) continue;
        const auto at = e.cancelled ? e.cut_at : e.cancel_at;
        if (!due || at.at() < due->at()) due = at;
    }
    return due;
}

void statement_watch::send_cancel(std::shared_ptr<pqxx::connection> conn) {
    if (m_cancels->fetch_add(1) >= cancels_in_flight_limit) {
        m_cancels->fetch_sub(1);
        return;
    }
    // The thread holds the connection (and so its socket and cancel key) until the request is
    // made, and closes it if the call has given it up meanwhile.
    std::thread{[conn = std::move(conn), cancels = m_cancels] {
        try {
            conn->cancel_query();
        } catch (const std::exception&) {
            // Not delivered: the cut at the deadline still ends the wait.
        }
        cancels->fetch_sub(1);
    }}.detach();
}

void statement_watch::run() {
    std::unique_lock lock{m_mutex};
    while (!m_stopping) {
        const auto due = next_due();
        if (!due) {
            m_sleeps_until = core::deadline::clock::time_point::max();
            m_changed.wait(lock);
            continue;
        }
        if (!due->passed()) {
            m_sleeps_until = due->at();
            m_changed.wait_until(lock, due->at());
            continue;
        }
        for (auto& e : m_entries) {
            if (!e.cancelled && e.cancel_at.passed()) {
                e.cancelled = true;
                send_cancel(e.conn);
            }
            if (!e.cut && e.cut_at.passed()) {
                e.cut = true;
                // The blocked call's read fails at once, and the executor settles it as in doubt.
                ::shutdown(e.conn->sock(), SHUT_RDWR);
            }
        }
    }
}

}  // namespace keeper::db
