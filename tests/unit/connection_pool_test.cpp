// The worker's connection pool (db/store/connection_pool.cpp) hands connections out first come, first
// served, and never more than its size at once. No connection is opened here: leases are taken
// and given back without asking for the connection.
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <chrono>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "db/store/connection_pool.hpp"

using keeper::db::connection_pool;

namespace {
keeper::core::deadline later() { return keeper::core::deadline::after(std::chrono::seconds{30}); }
}  // namespace

BOOST_AUTO_TEST_SUITE(connection_pool_leases)

BOOST_AUTO_TEST_CASE(waiters_are_served_in_the_order_they_came) {
    connection_pool pool{"host=/nonexistent", 1, [](pqxx::connection&) { return keeper::db::backend_identity{}; }};
    std::vector<int> served;
    std::mutex m;
    std::vector<std::thread> waiters;
    {
        auto held = pool.acquire(later());
        for (int i = 0; i < 5; ++i) {
            waiters.emplace_back([&, i] {
                auto lease = pool.acquire(later());
                std::lock_guard lock{m};
                served.push_back(i);
            });
            while (pool.waiting() < static_cast<std::size_t>(i + 1)) std::this_thread::yield();  // queued in order
        }
    }  // the held lease goes back: the first waiter gets it, then each in turn
    for (auto& w : waiters) w.join();
    BOOST_TEST(served == (std::vector<int>{0, 1, 2, 3, 4}));
}

BOOST_AUTO_TEST_CASE(no_more_leases_than_connections_at_once) {
    connection_pool pool{"host=/nonexistent", 3, [](pqxx::connection&) { return keeper::db::backend_identity{}; }};
    std::atomic<int> out{0}, most{0};
    std::vector<std::thread> users;
    for (int i = 0; i < 12; ++i) {
        users.emplace_back([&] {
            for (int k = 0; k < 200; ++k) {
                auto lease = pool.acquire(later());
                const int now = ++out;
                for (int seen = most; now > seen && !most.compare_exchange_weak(seen, now);) {
                }
                std::this_thread::yield();
                --out;
            }
        });
    }
    for (auto& u : users) u.join();
    BOOST_TEST(most.load() <= 3);
}

// A call waits for a connection only until its deadline, and then leaves the queue: the next
// connection given back goes to the waiter behind it, not to a call that already gave up.
BOOST_AUTO_TEST_CASE(a_waiter_gives_up_at_its_deadline_and_leaves_the_queue) {
    connection_pool pool{"host=/nonexistent", 1, [](pqxx::connection&) { return keeper::db::backend_identity{}; }};
    std::optional<connection_pool::lease> held{pool.acquire(later())};
    const auto started = std::chrono::steady_clock::now();
    BOOST_CHECK_THROW(pool.acquire(keeper::core::deadline::after(std::chrono::milliseconds{100})),
                      connection_pool::wait_expired);
    BOOST_TEST((std::chrono::steady_clock::now() - started >= std::chrono::milliseconds{100}));
    BOOST_TEST(pool.waiting() == 0U);
    std::atomic<bool> served{false};
    std::thread next{[&] {
        auto lease = pool.acquire(later());
        served = true;
    }};
    while (pool.waiting() < 1) std::this_thread::yield();
    held.reset();
    next.join();
    BOOST_TEST(served.load());
}

BOOST_AUTO_TEST_SUITE_END()
