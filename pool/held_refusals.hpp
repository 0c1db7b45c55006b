#pragma once
// The refusals a worker's refuser holds before it answers them (docs/design.md, "Overload"): a
// client that asks again before the Retry-After it was told ran out (pool/refused_clients.hpp)
// gets its next refusal refusal_hold (a second) after it came. Each is read at once, and its answer
// written when its time comes; in the order they came, which is the order of their times, each
// being held as long.
#include <chrono>
#include <deque>
#include <optional>

#include "fcgi/admission.hpp"
#include "fcgi/fcgi_exchange.hpp"
#include "refused_clients.hpp"

namespace keeper::pool {

class held_refusals {
public:
    using clock = std::chrono::steady_clock;

    struct held {
        clock::time_point answer_at;
        fcgi::begun_exchange begun;
        core::handled_request answer;
        fcgi::waiting_request waiting;
    };

    // One whose answer is written later; the caller read it at `now`.
    void hold(clock::time_point now, fcgi::begun_exchange begun, core::handled_request answer,
              const fcgi::waiting_request& waiting);
    // The first held, once its time has come.
    std::optional<held> due(clock::time_point now);
    // When the first held one is due, if one is held.
    std::optional<clock::time_point> next() const;
    std::size_t size() const { return m_held.size(); }

private:
    std::deque<held> m_held;
};

}  // namespace keeper::pool
