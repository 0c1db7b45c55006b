#include "db/store/connection_opening.hpp"

#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <utility>

#include <pqxx/except>

namespace keeper::db {
namespace {

// What the opening thread and the waiting call share; whichever finishes last frees it.
struct opening {
    std::mutex mutex;
    std::condition_variable finished;
    bool done = false;
    bool given_up = false;
    opened_connection result;
    std::exception_ptr error;
};

// Runs on the opening thread. A connection nobody waits for any more closes when `got` goes.
void open_into(opening& state, const std::string& conninfo, const connection_preparer& prepare) {
    opened_connection got;
    std::exception_ptr error;
    try {
        got.conn = std::make_shared<pqxx::connection>(conninfo);
        got.identity = prepare(*got.conn);
    } catch (...) {
        error = std::current_exception();
        got.conn.reset();
    }
    {
        std::lock_guard lock{state.mutex};
        state.done = true;
        if (!state.given_up) {
            state.result = std::exchange(got, {});
            state.error = error;
        }
    }
    state.finished.notify_one();
}

}  // namespace

connection_opener::connection_opener(std::string conninfo, connection_preparer prepare, std::size_t openings)
    : m_conninfo(std::move(conninfo)), m_prepare(std::move(prepare)), m_openings(openings == 0 ? 1 : openings) {}

opened_connection connection_opener::open(const core::deadline& until) const {
    if (until.passed()) throw pqxx::broken_connection("the call's deadline passed before a connection opened");
    if (m_running->fetch_add(1) >= m_openings) {
        m_running->fetch_sub(1);
        throw pqxx::broken_connection("too many connections to the database are still opening");
    }
    auto state = std::make_shared<opening>();
    std::thread{[state, conninfo = m_conninfo, prepare = m_prepare, running = m_running] {
        open_into(*state, conninfo, prepare);
        running->fetch_sub(1);
    }}.detach();
    std::unique_lock lock{state->mutex};
    if (!state->finished.wait_until(lock, until.at(), [&] { return state->done; })) {
        state->given_up = true;
        throw pqxx::broken_connection("no connection to the database opened before the call's deadline");
    }
    if (state->error) std::rethrow_exception(state->error);
    return std::move(state->result);
}

}  // namespace keeper::db
