#include "held_refusals.hpp"

#include <utility>

namespace keeper::fcgi {

std::unique_ptr<FCGX_Request> held_refusals::request() {
    if (!m_spare.empty()) {
        auto r = std::move(m_spare.back());
        m_spare.pop_back();
        return r;
    }
    auto r = std::make_unique<FCGX_Request>();
    FCGX_InitRequest(r.get(), -1, 0);
    return r;
}

void held_refusals::hold(clock::time_point now, std::unique_ptr<FCGX_Request> request, begun_exchange begun,
                         core::handled_request answer, const waiting_request& waiting) {
    m_held.push_back({now + refusal_hold, std::move(request), std::move(begun), std::move(answer), waiting});
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

void held_refusals::give_back(std::unique_ptr<FCGX_Request> request) { m_spare.push_back(std::move(request)); }

}  // namespace keeper::fcgi
