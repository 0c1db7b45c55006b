#pragma once
// The requests of one worker process that wait for a serving thread, and the rule that refuses one
// at once when it could not start soon enough (docs/design.md, "Overload"). A request is offered
// when it arrives on a connection no serving thread owns (fcgi/connection_hub.hpp) while every thread is busy; it is
// refused on arrival when the requests before it would take longer than the wait target to start: the queued ones times
// the mean time a thread spends on one, over the threads. A refusal costs the refuser a read and a short answer, never
// a thread of the pool or a database call, and reaches the client at once instead of after a wait (a second later for a
// client that asked again before its Retry-After ran out: pool/held_refusals.hpp). A request nginx sent before (the
// retry socket) is never refused: its first attempt may have run, so it is served, and before first-time requests.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <optional>
#include <random>

namespace keeper::fcgi {

struct waiting_request {
    int fd = -1;
    bool retried = false;  // from the retry socket
    std::chrono::steady_clock::time_point ready_at{};
    int retry_after_s = 1;  // a refused one: the Retry-After its answer gives (retry_pushback)
};

// The Retry-After a refusal gives. A client that waits what it is told comes back once per wait,
// so refusals per second are the waiting clients over their mean wait; when they pass a
// twentieth of the calls served, the waits grow so that they come back at about that share. Each
// refusal is told a whole number of seconds drawn evenly from 1 to the longest in force, R (at
// most 20): clients refused together come back spread over R seconds, not together R seconds
// later, where they would be refused together again (the echo of a burst). R is set once a second
// from the last second's share; within a second it grows at once when that second's refusals
// alone already pass the share (a burst), and it falls back to one second as the share does.
// Each refusal costs nginx and the worker a request's reading and answering: fewer of them leave
// that to the calls that are served.
class retry_pushback {
public:
    using clock = std::chrono::steady_clock;
    static constexpr double refused_share = 0.05;  // refusals per call served, as the target
    static constexpr int longest_s = 20;
    // Refusals a second must count before they alone move R: a few refused requests among the
    // first served of a second are no burst.
    static constexpr std::int64_t burst_floor = 32;

    explicit retry_pushback(std::uint32_t seed = std::random_device{}());

    // A request is refused now: the Retry-After its answer gives.
    int refused(clock::time_point now);
    void served(clock::time_point now);
    // A refused client came back before the Retry-After it was told ran out
    // (pool/refused_clients.hpp).
    void ignored(clock::time_point now);
    // The longest Retry-After in force (R).
    int seconds() const { return m_seconds; }
    // A retry storm: refused clients that came back before their wait ran out passed the target
    // share of the calls served, in the last whole second or, past burst_floor of them, in this one.
    bool storm() const { return m_storm; }

private:
    void roll(clock::time_point now);
    // The R that brings `share`, the share of refusals seen this second, to the target.
    int longest_for(double share) const;
    double share() const;  // this second's refusals per call served
    bool ignored_past_share() const;

    clock::time_point m_window_start{};
    std::int64_t m_refused = 0;
    std::int64_t m_served = 0;
    std::int64_t m_ignored = 0;
    bool m_storm = false;
    int m_seconds = 1;
    int m_second_began_with = 1;  // R when this second began: the waits its refusals were told
    std::minstd_rand m_spread;
};

class admission_queue {
public:
    using clock = std::chrono::steady_clock;
    // During a retry storm (retry_pushback::storm) the wait target is this much shorter: its
    // refusals are held (pool/worker.cpp), so each costs little and brings its client back a
    // second later at the soonest, and a short queue keeps the threads as busy.
    static constexpr int storm_target_divisor = 4;

    // waiting (may be null): a gauge of the requests queued, kept as they come and go.
    admission_queue(std::size_t threads, std::chrono::milliseconds wait_target,
                    std::atomic<std::int64_t>* waiting = nullptr);

    // A request arrived. Queued for a serving thread, or (false) handed to the refuser; while a
    // thread is idle it is queued for that thread, whatever the wait of the last requests served.
    bool offer(const waiting_request& r, bool thread_idle = false);
    // The next request for a serving thread, if one is queued: sent-before ones first, then the
    // oldest.
    std::optional<waiting_request> try_take();
    // The next request to refuse, with the Retry-After its answer gives, blocking until one comes
    // or `until`; nullopt once closed, or at `until`.
    std::optional<waiting_request> take_refused(clock::time_point until = clock::time_point::max());
    // The refuser found a refused client back before its Retry-After ran out.
    void note_ignored();
    bool closed() const;
    // A serving thread spent `service` on one request: the mean that predicts the next waits.
    void served(std::chrono::microseconds service);
    // Wakes the refuser with nullopt; requests still queued are the caller's to close.
    void close();

    // How long a request offered now would wait, every thread being busy (zero before a service
    // time is known).
    std::chrono::microseconds expected_wait() const;
    std::size_t waiting() const;

private:
    std::chrono::microseconds expected_wait_locked() const;
    waiting_request next_locked();

    const std::size_t m_threads;
    const std::chrono::microseconds m_wait_target;
    std::atomic<std::int64_t>* const m_waiting_gauge;
    mutable std::mutex m_mutex;
    std::condition_variable m_refused_ready;
    std::deque<waiting_request> m_retried;
    std::deque<waiting_request> m_first;
    std::deque<waiting_request> m_refused;
    double m_mean_service_us = 0;  // exponentially weighted; 0 until the first request is served
    retry_pushback m_pushback;
    bool m_closed = false;
};

}  // namespace keeper::fcgi
