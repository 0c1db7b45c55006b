#pragma once
// When a call must be answered by. Set once, as the request arrives (call_budget_ms after it), and
// handed to every wait the call makes: the pool's acquire, each statement, a commit's wait for the
// synchronous standby, the pauses between attempts (docs/design.md, "One deadline per call").
#include <chrono>

#include "core/api/http_message.hpp"

namespace keeper::core {

class deadline {
public:
    using clock = std::chrono::steady_clock;

    explicit deadline(clock::time_point at) : m_at(at) {}
    static deadline after(std::chrono::milliseconds budget) { return deadline{clock::now() + budget}; }

    clock::time_point at() const { return m_at; }
    // The same instant by the wall clock: what a database that checks the deadline by its own
    // clock is given (keeper_claim).
    std::chrono::system_clock::time_point wall() const {
        return std::chrono::system_clock::now() +
               std::chrono::duration_cast<std::chrono::system_clock::duration>(m_at - clock::now());
    }
    bool passed() const { return clock::now() >= m_at; }
    // Time left, zero once passed.
    std::chrono::milliseconds left() const {
        const auto d = std::chrono::duration_cast<std::chrono::milliseconds>(m_at - clock::now());
        return d.count() > 0 ? d : std::chrono::milliseconds{0};
    }
    // The same deadline, moved earlier: what a step must finish by to leave `reserve` for the next.
    deadline less(std::chrono::milliseconds reserve) const { return deadline{m_at - reserve}; }

private:
    clock::time_point m_at;
};

// A request's deadline (docs/design.md, "One deadline per call"): budget after nginx first saw it.
deadline call_deadline(const http_request& req, std::chrono::milliseconds budget);

}  // namespace keeper::core
