#include "refused_clients.hpp"

#include <cstring>
#include <mutex>

#include "shared_table.hpp"

namespace keeper::pool {

bool refused_clients::refused(std::string_view client, clock::time_point now, std::chrono::seconds told) {
    if (client.empty() || client.size() > name_capacity) return false;
    const auto at = steady_ns(now);
    const std::lock_guard held{m_mutex};
    entry& e = slot_for(client, at);
    const bool known = std::string_view{e.name.data(), e.name_size} == client;
    const bool early = known && at < e.until;
    if (!known) {
        e.name_size = static_cast<std::uint8_t>(client.size());
        std::memcpy(e.name.data(), client.data(), client.size());
    }
    e.until = steady_ns(now + (early ? refusal_hold : std::chrono::seconds{0}) + told);
    return early;
}

// The client's own entry if it has one; else a free one or one whose wait ran out; else the one
// whose wait ends first.
refused_clients::entry& refused_clients::slot_for(std::string_view client, std::int64_t now) {
    const auto home = static_cast<std::size_t>(stable_hash(client) % slots);
    entry* reusable = nullptr;
    entry* ends_first = nullptr;
    for (std::size_t i = 0; i < probes; ++i) {
        entry& e = m_entries[(home + i) % slots];
        if (e.until != 0 && std::string_view{e.name.data(), e.name_size} == client) return e;
        if (!reusable && e.until <= now) reusable = &e;
        if (!ends_first || e.until < ends_first->until) ends_first = &e;
    }
    return reusable ? *reusable : *ends_first;
}

}  // namespace keeper::pool
