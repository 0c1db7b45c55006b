#include "held_refusals.hpp"

#include <utility>

namespace keeper::pool {

void held_refusals::hold(clock::time_point now, fcgi::begun_exchange begun, core::handled_request answer,
                         const fcgi::waiting_request& waiting) {
    m_held.push_back({now + refusal_hold, std::move(begun), std::move(answer), waiting});
}

std::optional<held_refusals::held> held_refusals::due(clock::time_point now) {
    if (m_held.empty() || now < m_held.front().answer_at) return std::nullopt;
    auto h = std::move(m_held.front());
    m_held.pop_front();
    return h;
}

std::optional<held_refusals::clock::time_point> held_refusals::next() const {
    if (m_held.empty()) return std::nullopt;
    return m_held.front().answer_at;
}

}  // namespace keeper::pool
