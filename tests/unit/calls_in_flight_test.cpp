// The host's record of calls in flight (pool/calls_in_flight.cpp): a retry finds the server
// process of a first attempt another worker process recorded, and once a call is marked no first
// attempt of it is recorded again, whichever came first; a mark with no room locks every call. And
// the server processes a retry ends beside it: those named for a dead worker of this host
// (db/store/backend_ending.cpp).
#include <boost/test/unit_test.hpp>
#include <sys/wait.h>
#include <csignal>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <string>

#include "db/store/backend_ending.hpp"
#include "pool/calls_in_flight.hpp"
#include "pool/shared_memory.hpp"

using keeper::core::deadline;
using keeper::db::backend_identity;
using keeper::pool::calls_in_flight;
using namespace std::chrono_literals;

namespace {

const backend_identity backend{4242, "2026-11-28 21:00:00.123456+00"};

std::string id(int n) { return "1764363600000" + std::to_string(1000000 + n); }

}  // namespace

BOOST_AUTO_TEST_SUITE(calls_in_flight_record)

BOOST_AUTO_TEST_CASE(a_retry_finds_the_first_attempt_another_process_recorded) {
    keeper::pool::in_shared_memory<calls_in_flight> shared{"test"};
    const auto until = deadline::after(10s);
    const pid_t child = fork();
    if (child == 0) _exit(shared.get().begin_first(id(1), backend, until) ? 0 : 1);  // dies without end_first
    int status = 0;
    BOOST_REQUIRE(waitpid(child, &status, 0) == child);
    BOOST_REQUIRE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    const auto mark = shared.get().mark_retried(id(1), until);
    BOOST_TEST(mark.marked);
    BOOST_REQUIRE(mark.first_attempt.has_value());
    BOOST_TEST(mark.first_attempt->pid == backend.pid);
    BOOST_TEST(mark.first_attempt->started_at == backend.started_at);
    // Marked: the attempt run again (its connection broke) is not recorded, and takes the lock.
    BOOST_TEST(!shared.get().begin_first(id(1), backend, until));
    // A second retry finds the call marked and no attempt to end.
    const auto again = shared.get().mark_retried(id(1), until);
    BOOST_TEST(again.marked);
    BOOST_TEST(!again.first_attempt.has_value());
}

BOOST_AUTO_TEST_CASE(a_first_attempt_after_its_retry_is_not_recorded) {
    calls_in_flight calls;
    const auto until = deadline::after(10s);
    const auto mark = calls.mark_retried(id(2), until);
    BOOST_TEST(mark.marked);
    BOOST_TEST(!mark.first_attempt.has_value());
    BOOST_TEST(!calls.begin_first(id(2), backend, until));
    BOOST_TEST(calls.begin_first(id(3), backend, until));  // another call is
}

BOOST_AUTO_TEST_CASE(an_ended_attempt_leaves_nothing_but_a_mark_stays_until_the_deadline) {
    calls_in_flight calls;
    const auto until = deadline::after(10s);
    BOOST_TEST(calls.begin_first(id(4), backend, until));
    calls.end_first(id(4));
    const auto mark = calls.mark_retried(id(4), until);
    BOOST_TEST(!mark.first_attempt.has_value());  // it answered: the retry reads its audit row
    calls.end_first(id(4));                       // an attempt's end does not lift the mark
    BOOST_TEST(!calls.begin_first(id(4), backend, until));
}

BOOST_AUTO_TEST_CASE(an_entry_past_its_deadline_is_forgotten) {
    calls_in_flight calls;
    const deadline gone{deadline::clock::now() - 1ms};
    calls.mark_retried(id(5), gone);
    BOOST_TEST(calls.begin_first(id(5), backend, deadline::after(10s)));
}

BOOST_AUTO_TEST_CASE(what_does_not_fit_takes_the_lock) {
    calls_in_flight calls;
    const auto until = deadline::after(10s);
    const std::string long_id(calls_in_flight::id_capacity + 1, '7');
    BOOST_TEST(!calls.begin_first(long_id, backend, until));
    BOOST_TEST(calls.mark_retried(long_id, until).marked);             // never recorded, so nothing to mark
    BOOST_TEST(!calls.begin_first(id(6), backend_identity{}, until));  // no server process known
    BOOST_TEST(calls.begin_first(id(6), backend, until));
}

BOOST_AUTO_TEST_CASE(a_mark_without_room_locks_every_call_until_its_deadline) {
    auto calls = std::make_unique<calls_in_flight>();
    const auto until = deadline::after(10s);
    int n = 100;
    for (int refused = 0; refused < 2000; ++n) refused = calls->begin_first(id(n), backend, until) ? 0 : refused + 1;
    bool unmarked = false;
    for (int m = 0; m < 2000 && !unmarked; ++m) unmarked = !calls->mark_retried(id(n + m), until).marked;
    BOOST_REQUIRE(unmarked);
    for (int k = 100; k < n; ++k) calls->end_first(id(k));
    BOOST_TEST(!calls->begin_first(id(100), backend, until));  // room again, but a mark may be missing
}

// What a pool that stopped whole leaves: server processes named for workers that no longer run.
BOOST_AUTO_TEST_CASE(a_server_process_is_left_by_a_dead_worker_of_this_host_only) {
    using keeper::db::left_by_dead_worker;
    using keeper::db::worker_application_name_of;
    BOOST_TEST(!left_by_dead_worker(keeper::db::worker_application_name()));  // this process runs
    const pid_t child = fork();
    if (child == 0) {
        pause();
        _exit(0);
    }
    const std::string name = worker_application_name_of(child);
    BOOST_TEST(!left_by_dead_worker(name));
    kill(child, SIGKILL);
    BOOST_REQUIRE(waitpid(child, nullptr, 0) == child);
    BOOST_TEST(left_by_dead_worker(name));
    // Another host's (or boot's) worker, and names not a worker's, are never this host's to end.
    const auto at = name.find('@');
    BOOST_TEST(!left_by_dead_worker(name.substr(0, at) + "@another-host~0123456789ab"));
    BOOST_TEST(!left_by_dead_worker("keeper-fcgi trace=4bf92f3577b34da6a3ce929d0e0e4736"));
    BOOST_TEST(!left_by_dead_worker("psql"));
}

BOOST_AUTO_TEST_SUITE_END()
