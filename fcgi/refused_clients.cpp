#include "refused_clients.hpp"

#include <iterator>

namespace keeper::fcgi {

refused_clients::refused_clients(std::size_t capacity) : m_capacity(capacity > 0 ? capacity : 1) {}

bool refused_clients::refused(std::string_view client, clock::time_point now, std::chrono::seconds told) {
    if (client.empty()) return false;
    auto found = m_until.find(std::string{client});
    const bool early = found != m_until.end() && now < found->second;
    if (found == m_until.end()) {
        make_room(now);
        found = m_until.emplace(std::string{client}, now).first;
    }
    found->second = now + (early ? refusal_hold : std::chrono::seconds{0}) + told;
    return early;
}

// Full: the clients whose wait ran out go; should every one still be waiting (more clients
// refused within the longest Retry-After than the table holds), all go, and the next refusal of
// each counts as a first one.
void refused_clients::make_room(clock::time_point now) {
    if (m_until.size() < m_capacity) return;
    for (auto it = m_until.begin(); it != m_until.end();) it = it->second <= now ? m_until.erase(it) : std::next(it);
    if (m_until.size() >= m_capacity) m_until.clear();
}

}  // namespace keeper::fcgi
