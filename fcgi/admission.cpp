#include "admission.hpp"

#include <algorithm>

namespace keeper::fcgi {

admission_queue::admission_queue(std::size_t threads, std::chrono::milliseconds wait_target,
                                 std::atomic<std::int64_t>* waiting)
    : m_threads(threads > 0 ? threads : 1), m_wait_target(wait_target), m_waiting_gauge(waiting) {}

bool admission_queue::offer(const waiting_request& r, bool thread_idle) {
    {
        std::lock_guard lock{m_mutex};
        const auto target = m_pushback.storm() ? m_wait_target / storm_target_divisor : m_wait_target;
        if (!r.retried && !thread_idle && expected_wait_locked() > target) {
            m_refused.push_back(r);
            m_refused.back().retry_after_s = m_pushback.refused(clock::now());
            m_refused_ready.notify_one();
            return false;
        }
        (r.retried ? m_retried : m_first).push_back(r);
    }
    if (m_waiting_gauge) m_waiting_gauge->fetch_add(1, std::memory_order_relaxed);
    return true;
}

std::optional<waiting_request> admission_queue::try_take() {
    std::lock_guard lock{m_mutex};
    if (m_retried.empty() && m_first.empty()) return std::nullopt;
    return next_locked();
}

// The head of the queue, sent-before ones first; the queue is not empty.
waiting_request admission_queue::next_locked() {
    auto& from = !m_retried.empty() ? m_retried : m_first;
    const auto r = from.front();
    from.pop_front();
    if (m_waiting_gauge) m_waiting_gauge->fetch_sub(1, std::memory_order_relaxed);
    return r;
}

std::optional<waiting_request> admission_queue::take_refused(clock::time_point until) {
    std::unique_lock lock{m_mutex};
    const auto ready = [&] { return m_closed || !m_refused.empty(); };
    if (until == clock::time_point::max()) {
        m_refused_ready.wait(lock, ready);
    } else if (!m_refused_ready.wait_until(lock, until, ready)) {
        return std::nullopt;
    }
    if (m_closed) return std::nullopt;
    const auto r = m_refused.front();
    m_refused.pop_front();
    return r;
}

void admission_queue::note_ignored() {
    std::lock_guard lock{m_mutex};
    m_pushback.ignored(clock::now());
}

bool admission_queue::closed() const {
    std::lock_guard lock{m_mutex};
    return m_closed;
}

void admission_queue::served(std::chrono::microseconds service) {
    std::lock_guard lock{m_mutex};
    m_pushback.served(clock::now());
    // A sixteenth per request: a change of load shows within a few dozen requests, one slow call
    // does not swing it.
    const auto us = static_cast<double>(service.count());
    m_mean_service_us = m_mean_service_us == 0 ? us : m_mean_service_us + (us - m_mean_service_us) / 16;
}

void admission_queue::close() {
    {
        std::lock_guard lock{m_mutex};
        m_closed = true;
    }
    m_refused_ready.notify_all();
}

std::chrono::microseconds admission_queue::expected_wait() const {
    std::lock_guard lock{m_mutex};
    return expected_wait_locked();
}

std::size_t admission_queue::waiting() const {
    std::lock_guard lock{m_mutex};
    return m_retried.size() + m_first.size();
}

// Judged only while every thread is busy: every queued request, and this one, needs a thread for
// the mean service time, and the threads finish one each per mean service time between them.
std::chrono::microseconds admission_queue::expected_wait_locked() const {
    const auto ahead = static_cast<double>(m_retried.size() + m_first.size() + 1);
    return std::chrono::microseconds{
        static_cast<std::int64_t>(ahead * m_mean_service_us / static_cast<double>(m_threads))};
}

retry_pushback::retry_pushback(std::uint32_t seed) : m_spread(seed) {}

int retry_pushback::refused(clock::time_point now) {
    roll(now);
    ++m_refused;
    // A burst: this second's refusals alone already pass the share, so R grows now, not after
    // the second; the clients it refuses come back spread over the longer R.
    if (m_refused >= burst_floor) m_seconds = std::max(m_seconds, longest_for(share()));
    return std::uniform_int_distribution<int>{1, m_seconds}(m_spread);
}

void retry_pushback::served(clock::time_point now) {
    roll(now);
    ++m_served;
}

void retry_pushback::ignored(clock::time_point now) {
    roll(now);
    ++m_ignored;
    if (m_ignored >= burst_floor && ignored_past_share()) m_storm = true;
}

// Refused clients that did not wait, past the share of refusals Retry-After aims at.
bool retry_pushback::ignored_past_share() const {
    return static_cast<double>(m_ignored) > refused_share * static_cast<double>(std::max<std::int64_t>(m_served, 1));
}

double retry_pushback::share() const {
    return static_cast<double>(m_refused) / static_cast<double>(std::max<std::int64_t>(m_served, 1));
}

// Clients told evenly from 1 to R wait (R + 1) / 2 on average, and come back, so refuse, as
// often as the inverse: the mean that brings the share to the target, and the R that gives it.
int retry_pushback::longest_for(double share) const {
    const double mean_wanted = share * (m_second_began_with + 1) / 2.0 / refused_share;
    return std::clamp(static_cast<int>(2 * mean_wanted - 1 + 0.5), 1, longest_s);
}

// Once a second: R from the share of refusals the clients gave.
void retry_pushback::roll(clock::time_point now) {
    if (now - m_window_start < std::chrono::seconds{1}) return;
    if (m_window_start != clock::time_point{}) {
        m_seconds = longest_for(share());
        m_storm = ignored_past_share();
    }
    m_second_began_with = m_seconds;
    m_window_start = now;
    m_refused = m_served = m_ignored = 0;
}

}  // namespace keeper::fcgi
