// Sessions (docs/api-decisions.md, Authenticate) over the wire: what a mobile client sees of sessions.
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <thread>

#include "stack_fixture.hpp"
#include "tests/support/files.hpp"

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
    exec(
        "UPDATE sessions SET authenticated_at = now() - interval '25 hours' WHERE session_hash = "
        "keeper_session_hash(lower('" +
        session + "'))");
    BOOST_TEST(check_session(session, app) == 3);
    BOOST_TEST(good() == 0);
    BOOST_TEST(check_session(session, app) == 0);
}

BOOST_AUTO_TEST_CASE(nginx_access_log_holds_no_query_string_secrets) {
    const auto hash = expected_auth_hash(login, secret, session);
    BOOST_TEST(good() == 0);  // over GET: the hash and session id are in the query string
    std::this_thread::sleep_for(std::chrono::milliseconds{200});  // nginx logs after it answered
    const auto log = read_file(stack_state_dir() + "/log/nginx-access.log");
    BOOST_TEST(log.find("GET /SimpleAuthApi.asmx/Authenticate HTTP") != std::string::npos);  // the call is logged ...
    BOOST_TEST(log.find(hash) == std::string::npos);                                         // ... without its hash
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
                     "' AND s.session_hash = keeper_session_hash(lower('" + session + "'))") == 1);
}

BOOST_AUTO_TEST_CASE(five_failures_lock_the_login_out_with_11) {
    for (int i = 0; i < 5; ++i) BOOST_TEST(bad() == 4);
    BOOST_TEST(good() == 11);
    exec("UPDATE auth_failures SET failed_at = now() - interval '15 minutes 1 second' WHERE login = '" + login + "'");
    BOOST_TEST(good() == 0);
}

// The application's throttle is in the database, so the call's shape does not matter: SOAP 1.2
// without an action (routed by its body, which nginx's limit does not see) and GET count alike.
BOOST_AUTO_TEST_CASE(twenty_failures_of_an_application_answer_11_over_any_transport) {
    const auto app = unique("throttled");
    add_app(app, "app-secret", true);
    const auto sub = [&](const std::string& hash, bool soap) {
        const fields f{{"appId", app}, {"userId", "u1"},   {"pushServiceUserId", unique("dev")},
                       {"tag", "1"},   {"locale", "1033"}, {"authHash", hash}};
        return int_result(soap ? soap12_call("PushApi", "SubscribeAppWithTagAndLocale", f, false)
                               : get_call("PushApi", "SubscribeAppWithTagAndLocale", f));
    };
    for (int i = 0; i < 20; ++i) BOOST_TEST(sub(std::string(32, '0'), i % 2 == 0) == 4);
    BOOST_TEST(sub(expected_auth_hash(app, "app-secret", "u1"), true) == 11);
    BOOST_TEST(sub(expected_auth_hash(app, "app-secret", "u1"), false) == 11);
    exec("UPDATE app_auth_failures SET failed_at = now() - interval '15 minutes 1 second' WHERE app_id = lower('" +
         app + "')");
    BOOST_TEST(sub(expected_auth_hash(app, "app-secret", "u1"), true) == 0);
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

// "Check before repeating" through the stack (docs/api-decisions.md, "Checking a call's outcome"):
// the request id a call's answer carries finds the call's result and time at /call-outcome, for
// its login's sessions only; an id keeper never gave, old enough, is "none"; a young one "pending".
BOOST_AUTO_TEST_CASE(a_call_is_checked_by_its_request_id) {
    BOOST_TEST(good() == 0);
    const auto call = get_call(
        "AccountApi", "SetAccountPermits",
        {{"sessionId", session}, {"acceptPayments", "true"}, {"acceptInvoices", "false"}, {"acceptMessages", "true"}});
    BOOST_TEST(int_result(call) == 0);
    const auto id = call.header("x-request-id");
    const auto look = [&](const std::string& s, const std::string& request_id) {
        return http_get(port, "/call-outcome?sessionId=" + s + "&requestId=" + request_id);
    };
    const auto mine = look(session, id);
    BOOST_TEST(mine.status == 200);
    BOOST_TEST(mine.header("content-type").starts_with("application/json"));
    BOOST_TEST(
        mine.body.starts_with(R"({"requestId":")" + id + R"(","session":0,"outcome":"recorded","result":0,"at":")"),
        mine.body);
    // The login's other session sees it too; another login's session does not.
    const auto again = unique("{Again}");
    BOOST_TEST(authenticate(again, login, expected_auth_hash(login, secret, again)) == 0);
    BOOST_TEST(look(again, id).body.find(R"("outcome":"recorded")") != std::string::npos);
    const auto stranger = unique("stranger");
    add_login(stranger, "stranger-secret");
    const auto theirs = unique("{Theirs}");
    BOOST_TEST(authenticate(theirs, stranger, expected_auth_hash(stranger, "stranger-secret", theirs)) == 0);
    BOOST_TEST(look(theirs, id).body.find(R"("outcome":"recorded")") == std::string::npos);
    // Ids of calls that never happened: a minute old, and just now.
    const auto ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch());
    const auto never = std::to_string((ms - std::chrono::minutes{1}).count()) + "0000000000000000000";
    BOOST_TEST(look(session, never).body == R"({"requestId":")" + never + R"(","session":0,"outcome":"none"})");
    const auto young = std::to_string(ms.count()) + "0000000000000000000";
    const auto pending = look(session, young);
    BOOST_TEST(pending.body.find(R"("outcome":"pending")") != std::string::npos, pending.body);
    BOOST_TEST(!pending.header("retry-after").empty());
    BOOST_TEST(look(unique("nobody"), id).body == R"({"requestId":")" + id + R"(","session":2})");
    BOOST_TEST(look(session, "nonsense").status == 400);
}

BOOST_AUTO_TEST_SUITE_END()
