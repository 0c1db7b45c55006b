#include "calls_in_flight.hpp"

#include <algorithm>
#include <cstring>
#include <mutex>

#include "shared_table.hpp"

namespace keeper::pool {

using db::backend_identity;

namespace {

std::size_t home_of(std::string_view request_id) {
    return static_cast<std::size_t>(stable_hash(request_id) % calls_in_flight::slots);
}

}  // namespace

bool calls_in_flight::fits(std::string_view request_id, const backend_identity* backend) {
    if (request_id.empty() || request_id.size() > id_capacity) return false;
    return !backend || (backend->known() && backend->started_at.size() <= start_capacity);
}

void calls_in_flight::fill(entry& e, state is, std::string_view request_id, std::int64_t expires,
                           const backend_identity* backend) {
    e.id_size = static_cast<std::uint8_t>(request_id.size());
    std::memcpy(e.id.data(), request_id.data(), request_id.size());
    e.expires = expires;
    e.backend_pid = backend ? backend->pid : 0;
    e.start_size = static_cast<std::uint8_t>(backend ? backend->started_at.size() : 0);
    if (backend) std::memcpy(e.backend_start.data(), backend->started_at.data(), backend->started_at.size());
    e.is = is;
}

calls_in_flight::entry* calls_in_flight::find(std::string_view request_id, std::int64_t now) {
    const auto home = home_of(request_id);
    for (std::size_t i = 0; i < probes; ++i) {
        entry& e = m_entries[(home + i) % slots];
        if (e.is == state::free || e.expires < now) continue;
        if (std::string_view{e.id.data(), e.id_size} == request_id) return &e;
    }
    return nullptr;
}

calls_in_flight::entry* calls_in_flight::free_slot(std::string_view request_id, std::int64_t now) {
    const auto home = home_of(request_id);
    for (std::size_t i = 0; i < probes; ++i) {
        entry& e = m_entries[(home + i) % slots];
        if (e.is == state::free || e.expires < now) return &e;
    }
    return nullptr;
}

bool calls_in_flight::begin_first(std::string_view request_id, const backend_identity& backend,
                                  const core::deadline& until) {
    if (!fits(request_id, &backend)) return false;
    const auto now = steady_ns(std::chrono::steady_clock::now());
    const std::lock_guard held{m_mutex};
    entry* e = now < m_all_locked_until || find(request_id, now) ? nullptr : free_slot(request_id, now);
    if (e) fill(*e, state::first, request_id, steady_ns(until.at()), &backend);
    return e != nullptr;
}

void calls_in_flight::end_first(std::string_view request_id) {
    if (!fits(request_id, nullptr)) return;
    const auto now = steady_ns(std::chrono::steady_clock::now());
    const std::lock_guard held{m_mutex};
    if (entry* e = find(request_id, now); e && e->is == state::first) e->is = state::free;
}

calls_in_flight::retry_mark calls_in_flight::mark_retried(std::string_view request_id, const core::deadline& until) {
    retry_mark out;
    if (!fits(request_id, nullptr)) return out;  // such a call's first attempt is never recorded: it locks
    const auto now = steady_ns(std::chrono::steady_clock::now());
    const auto expires = steady_ns(until.at());
    const std::lock_guard held{m_mutex};
    if (entry* e = find(request_id, now)) {
        if (e->is == state::first) {
            out.first_attempt = backend_identity{e->backend_pid, std::string{e->backend_start.data(), e->start_size}};
            e->is = state::retried;
        }
        e->expires = std::max(e->expires, expires);
    } else if (entry* slot = free_slot(request_id, now)) {
        fill(*slot, state::retried, request_id, expires, nullptr);
    } else {
        out.marked = false;
        m_all_locked_until = std::max(m_all_locked_until, expires);
    }
    return out;
}

}  // namespace keeper::pool
