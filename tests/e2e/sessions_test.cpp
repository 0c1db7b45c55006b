// Sessions (docs/api-decisions.md, Authenticate) over the wire: what a mobile client sees of sessions.
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <fstream>
#include <iterator>
#include <thread>

#include "stack_fixture.hpp"

using namespace keeper::test;
using keeper::core::expected_auth_hash;

namespace {

struct sessions_fixture : stack_fixture {
    std::string login = unique("wire");
    std::string secret = "wire-secret";
    std::string session = unique("{Sess}");
    sessions_fixture() { add_login(login, secret); }
    int good() { return authenticate(session, login, expected_auth_hash(login, secret, session)); }
    int bad() { return authenticate(session, login, std::string(32, '0')); }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(e2e_sessions, sessions_fixture)

BOOST_AUTO_TEST_CASE(authenticate_then_check_then_renew) {
    const auto app = unique("app");
    add_app(app, "s", true);
    BOOST_TEST(check_session(session, app) == 2);
    BOOST_TEST(good() == 0);
    BOOST_TEST(check_session(session, app) == 0);
    exec("UPDATE sessions SET authenticated_at = now() - interval '25 hours' WHERE session_id = lower('" + session + "')");
    BOOST_TEST(check_session(session, app) == 3);
    BOOST_TEST(good() == 0);
    BOOST_TEST(check_session(session, app) == 0);
}

BOOST_AUTO_TEST_CASE(nginx_access_log_holds_no_query_string_secrets) {
    const auto hash = expected_auth_hash(login, secret, session);
    BOOST_TEST(good() == 0);  // over GET: the hash and session id are in the query string
    std::this_thread::sleep_for(std::chrono::milliseconds{200});  // nginx logs after it answered
    std::ifstream in{stack_state_dir() + "/log/nginx-access.log"};
    const std::string log{std::istreambuf_iterator<char>{in}, {}};
    BOOST_TEST(log.find("GET /SimpleAuthApi.asmx/Authenticate HTTP") != std::string::npos);  // the call is logged ...
    BOOST_TEST(log.find(hash) == std::string::npos);                                          // ... without its hash
}

BOOST_AUTO_TEST_CASE(wrong_hash_and_unknown_login_both_answer_4) {
    BOOST_TEST(bad() == 4);
    const auto ghost = unique("ghost");
    BOOST_TEST(authenticate(session, ghost, expected_auth_hash(ghost, secret, session)) == 4);
}

BOOST_AUTO_TEST_CASE(a_bound_session_is_not_rebound_to_another_login) {
    BOOST_TEST(good() == 0);
    const auto other = unique("other");
    add_login(other, "other");
    BOOST_TEST(authenticate(session, other, expected_auth_hash(other, "other", session)) == 4);
    BOOST_TEST(count("SELECT count(*) FROM sessions s JOIN logins l ON l.id = s.login_id WHERE l.login = '" + login +
                     "' AND s.session_id = lower('" + session + "')") == 1);
}

BOOST_AUTO_TEST_CASE(five_failures_lock_the_login_out_with_11) {
    for (int i = 0; i < 5; ++i) BOOST_TEST(bad() == 4);
    BOOST_TEST(good() == 11);
    exec("UPDATE auth_failures SET failed_at = now() - interval '15 minutes 1 second' WHERE login = '" + login + "'");
    BOOST_TEST(good() == 0);
}

BOOST_AUTO_TEST_CASE(unknown_and_disabled_applications_answer_10) {
    const auto off = unique("off");
    add_app(off, "s", false);
    BOOST_TEST(good() == 0);
    BOOST_TEST(check_session(session, off) == 10);
    BOOST_TEST(check_session(session, unique("nope")) == 10);
}

BOOST_AUTO_TEST_CASE(bad_formats_answer_1) {
    BOOST_TEST(authenticate("has%20space", login, std::string(32, '0')) == 1);
    BOOST_TEST(authenticate(session, login, "not-a-hash") == 1);
    BOOST_TEST(check_session(session, "") == 1);
}

BOOST_AUTO_TEST_SUITE_END()
