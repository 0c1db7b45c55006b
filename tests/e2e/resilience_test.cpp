// The pool keeps serving when PostgreSQL drops its connections and when a worker dies.
// Run alone (RUN_SERIAL): it disturbs every worker of the stack.
#include <signal.h>

#include <boost/test/unit_test.hpp>
#include <algorithm>
#include <fstream>
#include <thread>

#include "stack_fixture.hpp"

using namespace keeper::test;

namespace {

std::vector<int> children_of(int parent) {
    std::vector<int> out;
    std::ifstream in{"/proc/" + std::to_string(parent) + "/task/" + std::to_string(parent) + "/children"};
    for (int pid; in >> pid;) out.push_back(pid);
    return out;
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(e2e_resilience, stack_fixture)

// Connections PostgreSQL ended while they were idle (a restart, pg_terminate_backend) are found
// before a call sends anything on them and replaced: no call fails, and the workers live on.
BOOST_AUTO_TEST_CASE(database_connections_cut_while_idle_cost_no_call_and_the_workers_reconnect) {
    const auto workers = children_of(stack_pool_pid());
    BOOST_TEST_REQUIRE(!workers.empty());
    const fields f{{"sessionId", unique("s")}, {"appId", "a"}};
    // Make sure every worker has a connection, then cut them all.
    for (std::size_t i = 0; i < workers.size() * 3; ++i) get_call("AccountApi", "CheckSessionEx", f);
    // Every worker names its connections "keeper-fcgi <pid>@<host>" (db/store/backend_ending.hpp):
    // there are connections to cut (nginx may not have sent a call to every worker).
    BOOST_TEST_REQUIRE(count("SELECT count(*) FROM pg_stat_activity WHERE application_name LIKE 'keeper-fcgi %'") >= 1);
    exec("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name LIKE 'keeper-fcgi %'");
    std::this_thread::sleep_for(std::chrono::milliseconds{300});  // the terminations reach the sockets
    int faults = 0;
    for (std::size_t i = 0; i < workers.size() * 4; ++i) {
        const auto r = soap11_call("AccountApi", "CheckSessionEx", f);
        if (r.status == 500) {
            ++faults;
            BOOST_TEST(r.body.find("<faultcode>soap:Server</faultcode>") != std::string::npos);
            BOOST_TEST(r.body.find("Server was unable to process request") != std::string::npos);
        } else {
            BOOST_TEST(r.body == soap_success(soap11_ns, "CheckSessionEx", "2"));
        }
    }
    BOOST_TEST(faults == 0);
    for (std::size_t i = 0; i < workers.size() * 2; ++i)
        BOOST_TEST(int_result(get_call("AccountApi", "CheckSessionEx", f)) == 2);
    BOOST_TEST((children_of(stack_pool_pid()) == workers));  // the same workers lived on
}

BOOST_AUTO_TEST_CASE(a_worker_that_dies_is_replaced) {
    const auto before = children_of(stack_pool_pid());
    BOOST_TEST_REQUIRE(before.size() >= 2u);
    kill(before.front(), SIGKILL);
    std::vector<int> after;
    for (int i = 0; i < 50; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds{100});
        after = children_of(stack_pool_pid());
        if (after.size() == before.size() && std::find(after.begin(), after.end(), before.front()) == after.end())
            break;
    }
    BOOST_TEST(after.size() == before.size());
    BOOST_TEST((std::find(after.begin(), after.end(), before.front()) == after.end()));
    for (int i = 0; i < 20; ++i) BOOST_TEST(get_call("GlobalApi", "GetUtcNow", {}).status == 200);
}

BOOST_AUTO_TEST_SUITE_END()
