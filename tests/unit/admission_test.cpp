// The admission queue's rule (fcgi/admission.hpp), without a socket: a request is refused on
// arrival exactly when the requests before it would keep every thread busy past the wait target;
// a request sent before is never refused and is served first; a request for an idle thread is never
// refused.
#include <boost/test/unit_test.hpp>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <memory>
#include <string>

#include "fcgi/admission.hpp"
#include "pool/refused_clients.hpp"
#include "pool/shared_memory.hpp"

using namespace keeper::fcgi;
using keeper::pool::in_shared_memory;
using keeper::pool::refused_clients;
using std::chrono::microseconds;
using std::chrono::milliseconds;

namespace {

waiting_request first(int fd) { return {fd, false, admission_queue::clock::now()}; }
waiting_request retried(int fd) { return {fd, true, admission_queue::clock::now()}; }

}  // namespace

BOOST_AUTO_TEST_SUITE(admission)

BOOST_AUTO_TEST_CASE(requests_are_queued_until_their_expected_wait_passes_the_target) {
    std::atomic<std::int64_t> waiting{0};
    admission_queue q{2, milliseconds{10}, &waiting};
    q.served(microseconds{4000});  // 4 ms a request, 2 threads: 2 ms of wait per queued request
    for (int fd = 0; fd < 4; ++fd) BOOST_TEST(q.offer(first(fd)));  // expected 2, 4, 6, 8 ms
    BOOST_TEST(q.expected_wait() == microseconds{10000});
    BOOST_TEST(q.offer(first(4)));   // 10 ms: at the target, not past it
    BOOST_TEST(!q.offer(first(5)));  // 12 ms: refused, and not queued
    BOOST_TEST(q.waiting() == 5u);
    BOOST_TEST(waiting.load() == 5);
    const auto refused = q.take_refused();
    BOOST_REQUIRE(refused.has_value());
    BOOST_TEST(refused->fd == 5);
}

BOOST_AUTO_TEST_CASE(a_request_for_an_idle_thread_is_queued_whatever_the_last_ones_took) {
    // A service time of seconds (a stalled database) predicts a wait past the target, but a thread
    // is idle: the request is its, not a refusal.
    admission_queue q{2, milliseconds{10}};
    q.served(microseconds{5'000'000});
    BOOST_TEST(!q.offer(first(1)));
    BOOST_TEST(q.offer(first(2), true));
    BOOST_TEST(q.try_take()->fd == 2);
}

BOOST_AUTO_TEST_CASE(a_request_sent_before_is_never_refused_and_goes_first) {
    admission_queue q{1, milliseconds{10}};
    q.served(microseconds{5000});
    BOOST_TEST(q.offer(first(1)));    // 5 ms
    BOOST_TEST(q.offer(first(2)));    // 10 ms
    BOOST_TEST(!q.offer(first(3)));   // 15 ms: refused
    BOOST_TEST(q.offer(retried(4)));  // sent before: its first attempt may have run
    BOOST_TEST(q.offer(retried(5)));
    BOOST_TEST(q.try_take()->fd == 4);
    BOOST_TEST(q.try_take()->fd == 5);
    BOOST_TEST(q.try_take()->fd == 1);
    BOOST_TEST(q.try_take()->fd == 2);
}

BOOST_AUTO_TEST_CASE(nothing_is_refused_before_a_service_time_is_known) {
    admission_queue q{1, milliseconds{1}};
    for (int fd = 0; fd < 100; ++fd) BOOST_TEST(q.offer(first(fd)));
    BOOST_TEST(q.expected_wait() == microseconds{0});
}

BOOST_AUTO_TEST_CASE(close_wakes_the_refuser) {
    admission_queue q{1, milliseconds{1}};
    q.close();
    BOOST_TEST(!q.try_take().has_value());
    BOOST_TEST(!q.take_refused().has_value());
}

// Retry-After: one second while few arrivals are refused; past a twentieth of the calls served,
// waits long enough that clients who wait them come back at about that share; back to one as it
// falls. Told evenly from 1 to R, clients wait (R + 1) / 2 on average.
BOOST_AUTO_TEST_CASE(retry_after_grows_with_the_share_refused_and_falls_back) {
    using clock = retry_pushback::clock;
    retry_pushback p{7};
    auto t = clock::time_point{} + std::chrono::hours{1};
    const auto second = [&](int refused, int served) {  // one second of events, then the next begins
        for (int i = 0; i < served; ++i) p.served(t);
        for (int i = 0; i < refused; ++i) p.refused(t);
        t += std::chrono::seconds{1};
        p.served(t);
        return p.seconds();
    };
    BOOST_TEST(p.seconds() == 1);
    BOOST_TEST(second(0, 1000) == 1);    // the first second only starts the count
    BOOST_TEST(second(40, 1000) == 1);   // 4 %: under the target
    BOOST_TEST(second(250, 1000) == 9);  // 25 % at 1 s: a mean of 5 s brings it to 5 %
    BOOST_TEST(second(50, 1000) == 9);   // the same clients, now waiting 5 s on average: steady
    BOOST_TEST(second(10, 1000) == 1);   // they went away
    BOOST_TEST(second(5000, 0) == 20);   // nothing served (a stalled database): the longest
}

// A burst is spread at once: the clients it refuses would otherwise all come back one second
// later, to be refused together again.
BOOST_AUTO_TEST_CASE(a_burst_lengthens_retry_after_within_its_second) {
    using clock = retry_pushback::clock;
    retry_pushback p{7};
    const auto t = clock::time_point{} + std::chrono::hours{1};
    for (int i = 0; i < 100; ++i) p.served(t);
    for (std::int64_t i = 1; i < retry_pushback::burst_floor; ++i) BOOST_TEST(p.refused(t) == 1);  // no burst yet
    p.refused(t);  // 32 refused to 100 served: past the share
    BOOST_TEST(p.seconds() > 1);
    for (int i = 0; i < 300; ++i) p.refused(t);
    BOOST_TEST(p.seconds() == retry_pushback::longest_s);
}

BOOST_AUTO_TEST_CASE(refusals_are_told_waits_spread_evenly_up_to_the_longest) {
    using clock = retry_pushback::clock;
    retry_pushback p{7};
    const auto t = clock::time_point{} + std::chrono::hours{1};
    for (int i = 0; i < 100; ++i) p.refused(t);  // nothing served: R is the longest
    std::array<int, retry_pushback::longest_s + 1> told{};
    double sum = 0;
    const int draws = 4000;
    for (int i = 0; i < draws; ++i) {
        const int s = p.refused(t);
        BOOST_REQUIRE(s >= 1);
        BOOST_REQUIRE(s <= retry_pushback::longest_s);
        ++told[static_cast<std::size_t>(s)];
        sum += s;
    }
    for (int s = 1; s <= retry_pushback::longest_s; ++s)
        BOOST_TEST(told[static_cast<std::size_t>(s)] > draws / retry_pushback::longest_s / 2);
    BOOST_TEST(sum / draws > 9.5);
    BOOST_TEST(sum / draws < 11.5);
}

// A client is known by its connection; one refused again before the wait it was told ran out did
// not wait, one refused again after it did.
BOOST_AUTO_TEST_CASE(a_client_back_before_its_retry_after_ran_out_is_known) {
    using clock = refused_clients::clock;
    using std::chrono::seconds;
    const auto clients = std::make_unique<refused_clients>();
    const auto t = clock::time_point{} + std::chrono::hours{1};
    BOOST_TEST(!clients->refused("192.0.2.1 50000", t, seconds{3}));               // its first refusal
    BOOST_TEST(clients->refused("192.0.2.1 50000", t + seconds{1}, seconds{3}));   // back after 1 s of 3: held
    BOOST_TEST(!clients->refused("192.0.2.1 50001", t + seconds{1}, seconds{3}));  // another connection
    // Held, it had its answer a second later: its 3 s ran from there.
    BOOST_TEST(clients->refused("192.0.2.1 50000", t + seconds{4}, seconds{3}));
    BOOST_TEST(!clients->refused("192.0.2.1 50000", t + seconds{9}, seconds{3}));  // waited: 1 s held, 3 s told
    BOOST_TEST(clients->refused("192.0.2.1 50000", t + seconds{11}, seconds{3}));  // not this time
    BOOST_TEST(!clients->refused("", t, seconds{3}));                              // no name: never one
    BOOST_TEST(!clients->refused("", t, seconds{3}));
    const std::string too_long(refused_clients::name_capacity + 1, '1');
    BOOST_TEST(!clients->refused(too_long, t, seconds{3}));
    BOOST_TEST(!clients->refused(too_long, t, seconds{3}));
}

// nginx spreads a client's calls over every worker process: a client one process refused is known
// to the others.
BOOST_AUTO_TEST_CASE(a_client_refused_by_one_worker_is_known_to_the_others) {
    using std::chrono::seconds;
    in_shared_memory<refused_clients> shared{"test"};
    const auto t = refused_clients::clock::now();
    const pid_t child = fork();
    if (child == 0) _exit(shared.get().refused("192.0.2.7 40000", t, seconds{5}) ? 1 : 0);
    int status = 0;
    BOOST_REQUIRE(waitpid(child, &status, 0) == child);
    BOOST_REQUIRE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    BOOST_TEST(shared.get().refused("192.0.2.7 40000", t + seconds{1}, seconds{5}));
    BOOST_TEST(!shared.get().refused("192.0.2.7 40001", t + seconds{1}, seconds{5}));
}

// The table is fixed: more clients than it holds push out those whose waits ran out first, then
// those whose waits end first; a client still waiting among clients whose waits ran out stays.
BOOST_AUTO_TEST_CASE(the_refused_clients_forget_the_waits_that_ran_out_first) {
    using clock = refused_clients::clock;
    using std::chrono::seconds;
    const auto clients = std::make_unique<refused_clients>();
    const auto t = clock::time_point{} + std::chrono::hours{1};
    const auto name = [](int round, int i) { return "10." + std::to_string(round) + "." + std::to_string(i) + " 1"; };
    constexpr int crowd = static_cast<int>(refused_clients::slots) * 2;
    for (int i = 0; i < crowd; ++i) clients->refused(name(1, i), t, seconds{1});
    clients->refused("10.0.0.9 1", t, seconds{20});
    for (int i = 0; i < crowd; ++i) clients->refused(name(2, i), t + seconds{2}, seconds{1});
    BOOST_TEST(clients->refused("10.0.0.9 1", t + seconds{2}, seconds{1}));  // still waiting: stays
    // Over full with clients still waiting: each new one still has its entry, for its next refusal.
    for (int i = 0; i < crowd; ++i) BOOST_TEST_REQUIRE(!clients->refused(name(3, i), t + seconds{3}, seconds{5}));
    BOOST_TEST(clients->refused(name(3, crowd - 1), t + seconds{4}, seconds{5}));
}

// A retry storm: refused clients back before their wait ran out, past the target share of the calls
// served (a twentieth), in the last whole second, or past burst_floor of them within this one.
BOOST_AUTO_TEST_CASE(a_retry_storm_is_clients_that_do_not_wait) {
    using clock = retry_pushback::clock;
    retry_pushback p{7};
    auto t = clock::time_point{} + std::chrono::hours{1};
    const auto second = [&](int ignored, int served) {
        for (int i = 0; i < served; ++i) p.served(t);
        for (int i = 0; i < ignored; ++i) {
            p.refused(t);
            p.ignored(t);
        }
        t += std::chrono::seconds{1};
        p.served(t);
        return p.storm();
    };
    BOOST_TEST(!second(0, 1000));
    BOOST_TEST(!second(40, 1000));  // 4 %
    BOOST_TEST(second(60, 1000));   // 6 %
    BOOST_TEST(!second(20, 1000));  // they went away
    for (int i = 0; i < 1000; ++i) p.served(t);
    for (std::int64_t i = 1; i < retry_pushback::burst_floor; ++i) p.ignored(t);
    BOOST_TEST(!p.storm());
    for (int i = 0; i < 40; ++i) p.ignored(t);  // 71 of 1000 within the second
    BOOST_TEST(p.storm());
}

// During a storm the queue is kept to a quarter of the wait target.
BOOST_AUTO_TEST_CASE(in_a_retry_storm_the_queue_is_a_quarter_of_the_target) {
    admission_queue q{1, milliseconds{40}};
    q.served(microseconds{5000});                                   // 5 ms of wait per queued request
    for (int fd = 0; fd < 2; ++fd) BOOST_TEST(q.offer(first(fd)));  // 5, 10 ms
    for (std::int64_t i = 0; i < retry_pushback::burst_floor; ++i) q.note_ignored();
    BOOST_TEST(!q.offer(first(2)));  // 15 ms: past 40 ms / 4
    BOOST_TEST(q.waiting() == 2u);
}

BOOST_AUTO_TEST_CASE(the_refuser_waits_for_a_refusal_until_a_held_one_is_due) {
    using clock = admission_queue::clock;
    admission_queue q{1, milliseconds{1}};
    const auto until = clock::now() + std::chrono::milliseconds{30};
    BOOST_TEST(!q.take_refused(until).has_value());
    BOOST_TEST((clock::now() >= until));
    BOOST_TEST(!q.closed());
}

BOOST_AUTO_TEST_CASE(a_refused_request_carries_the_retry_after_in_force) {
    admission_queue q{1, milliseconds{1}};
    q.served(microseconds{5000});
    BOOST_TEST(q.offer(first(0)) == false);
    const auto refused = q.take_refused();
    BOOST_REQUIRE(refused.has_value());
    BOOST_TEST(refused->retry_after_s == 1);
}

BOOST_AUTO_TEST_SUITE_END()
