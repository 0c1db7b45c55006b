// Sessions (docs/api-decisions.md, Authenticate) against PostgreSQL: Authenticate and CheckSessionEx, and what each
// leaves behind.
#include <boost/test/unit_test.hpp>

#include "core/api/text_util.hpp"
#include "db/store/session_key.hpp"
#include "db_fixture.hpp"

using keeper::test::db_fixture;

namespace {

const std::string wrong_hash(32, '0');

struct session_fixture : db_fixture {
    std::string login = unique("user");
    std::string secret = "S3cret-" + unique("s");
    std::string session = "{" + unique("SESSION") + "}";
    session_fixture() { add_login(login, secret); }

    long long failures() { return count("SELECT count(*) FROM auth_failures WHERE login = '" + login + "'"); }
    long long sessions_of(const std::string& l) {
        return count("SELECT count(*) FROM sessions s JOIN logins l ON l.id = s.login_id WHERE l.login = '" + l + "'");
    }
    void age_session(const std::string& interval) {
        pqxx::work tx{sql()};
        tx.exec_params(
            "UPDATE sessions SET authenticated_at = now() - $2::interval WHERE session_hash = "
            "keeper_session_hash(lower($1))",
            session, interval);
        tx.commit();
    }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(authenticate, session_fixture)

BOOST_AUTO_TEST_CASE(a_correct_hash_binds_the_session_and_answers_0) {
    BOOST_TEST(authenticate_with_secret(session, login, secret) == 0);
    BOOST_TEST(
        count("SELECT count(*) FROM sessions WHERE session_hash = keeper_session_hash(lower('" + session + "'))") == 1);
    BOOST_TEST(check_session(session, "none") == 10);  // the session is valid; the app is not
}

// The worker passes the session's hash, and a DBA finds the session by keeper_session_hash: one digest.
BOOST_AUTO_TEST_CASE(the_workers_session_key_is_keeper_session_hash) {
    for (const std::string_view id : {"{11111111-2222-3333-4444-555555555555}", "abc", "\xc3\xa9t\xc3\xa9", ""}) {
        BOOST_TEST(keeper::db::session_key(id) ==
                   scalar("SELECT keeper_session_hash(" + sql().quote(std::string{id}) + ")::text"));
    }
    BOOST_TEST(keeper::db::session_key("abc") == "\\xba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

BOOST_AUTO_TEST_CASE(login_session_id_and_hash_compare_case_insensitively) {
    const auto hash = keeper::core::expected_auth_hash(login, secret, session);
    std::string upper_hash = hash;
    for (auto& c : upper_hash) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    std::string upper_login = login;
    for (auto& c : upper_login) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    BOOST_TEST(authenticate(session, upper_login, upper_hash) == 0);
    std::string lower_session = session;
    for (auto& c : lower_session) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    BOOST_TEST(check_session(lower_session, "none") == 10);
}

BOOST_AUTO_TEST_CASE(authenticating_again_renews_the_session) {
    BOOST_TEST(authenticate_with_secret(session, login, secret) == 0);
    age_session("23 hours");
    BOOST_TEST(authenticate_with_secret(session, login, secret) == 0);
    BOOST_TEST(count("SELECT count(*) FROM sessions WHERE session_hash = keeper_session_hash(lower('" + session +
                     "')) AND authenticated_at > now() - interval '1 minute'") == 1);
}

BOOST_AUTO_TEST_CASE(a_wrong_hash_answers_4_records_a_failure_and_binds_nothing) {
    BOOST_TEST(authenticate(session, login, wrong_hash) == 4);
    BOOST_TEST(failures() == 1);
    BOOST_TEST(sessions_of(login) == 0);
    BOOST_TEST(check_session(session, "x") == 2);
}

BOOST_AUTO_TEST_CASE(an_unknown_login_answers_4_like_a_wrong_hash) {
    const auto ghost = unique("ghost");
    BOOST_TEST(authenticate(session, ghost, keeper::core::expected_auth_hash(ghost, "anything", session)) == 4);
    BOOST_TEST(count("SELECT count(*) FROM auth_failures WHERE login = '" + ghost + "'") == 1);
}

BOOST_AUTO_TEST_CASE(a_session_bound_to_another_login_is_not_rebound) {
    BOOST_TEST(authenticate_with_secret(session, login, secret) == 0);
    const auto other = unique("other");
    add_login(other, "other-secret");
    BOOST_TEST(authenticate_with_secret(session, other, "other-secret") == 4);
    BOOST_TEST(sessions_of(login) == 1);
    BOOST_TEST(sessions_of(other) == 0);
}

BOOST_AUTO_TEST_CASE(five_failures_in_the_window_answer_11_without_checking_the_hash) {
    for (int i = 0; i < 5; ++i) BOOST_TEST(authenticate(session, login, wrong_hash) == 4);
    BOOST_TEST(authenticate_with_secret(session, login, secret) == 11);
    BOOST_TEST(authenticate(session, login, wrong_hash) == 11);
    BOOST_TEST(failures() == 5);  // 11 is not a failure of its own
    BOOST_TEST(sessions_of(login) == 0);
}

BOOST_AUTO_TEST_CASE(the_throttle_ends_when_the_window_passes) {
    for (int i = 0; i < 5; ++i) authenticate(session, login, wrong_hash);
    {
        pqxx::work tx{sql()};
        tx.exec_params("UPDATE auth_failures SET failed_at = now() - interval '16 minutes' WHERE login = $1", login);
        tx.commit();
    }
    BOOST_TEST(authenticate_with_secret(session, login, secret) == 0);
}

BOOST_AUTO_TEST_CASE(the_throttle_follows_the_configured_numbers) {
    cfg.auth_max_failures = 2;
    authenticate(session, login, wrong_hash);
    BOOST_TEST(authenticate_with_secret(session, login, secret) == 0);  // 1 failure < 2
    authenticate(session, login, wrong_hash);
    authenticate(session, login, wrong_hash);
    BOOST_TEST(authenticate_with_secret(session, login, secret) == 11);
}

BOOST_AUTO_TEST_CASE(a_success_forgives_earlier_failures) {
    for (int i = 0; i < 4; ++i) authenticate(session, login, wrong_hash);
    BOOST_TEST(authenticate_with_secret(session, login, secret) == 0);
    BOOST_TEST(failures() == 0);
    for (int i = 0; i < 4; ++i) authenticate(session, login, wrong_hash);
    BOOST_TEST(authenticate_with_secret(session, login, secret) == 0);
}

BOOST_AUTO_TEST_CASE(invalid_formats_answer_1_and_change_nothing) {
    BOOST_TEST(authenticate("bad session", login, wrong_hash) == 1);
    BOOST_TEST(authenticate(session, login, "123") == 1);
    BOOST_TEST(authenticate(session, login, std::string(32, 'g')) == 1);
    BOOST_TEST(authenticate(session, std::string(65, 'a'), wrong_hash) == 1);
    BOOST_TEST(authenticate(std::string(65, 'a'), login, wrong_hash) == 1);
    BOOST_TEST(authenticate(session, "", wrong_hash) == 1);
    BOOST_TEST(failures() == 0);
    BOOST_TEST(sessions_of(login) == 0);
}

BOOST_AUTO_TEST_CASE(each_call_leaves_one_audit_row_without_the_hash) {
    const auto before = count("SELECT count(*) FROM audit_calls WHERE login = '" + login + "'");
    authenticate(session, login, wrong_hash);
    authenticate_with_secret(session, login, secret);
    BOOST_TEST(count("SELECT count(*) FROM audit_calls WHERE login = '" + login + "'") == before + 2);
    BOOST_TEST(count("SELECT count(*) FROM audit_calls WHERE login = '" + login +
                     "' AND operation = 'Authenticate' AND result = 4") == 1);
    BOOST_TEST(count("SELECT count(*) FROM audit_log WHERE request_id = '' OR request_id IS NULL") == 0);
    // By id, the name only for a login that does not exist.
    BOOST_TEST(count("SELECT count(*) FROM audit_log a JOIN logins l ON l.id = a.login_id WHERE l.login = '" + login +
                     "' AND a.login IS NULL") == before + 2);
    const auto ghost = unique("ghost");
    BOOST_TEST(authenticate(session, ghost, wrong_hash) == 4);
    BOOST_TEST(count("SELECT count(*) FROM audit_log WHERE login = '" + ghost + "' AND login_id IS NULL") == 1);
    const auto hash = keeper::core::expected_auth_hash(login, secret, session);
    BOOST_TEST(count("SELECT count(*) FROM audit_log a WHERE a::text LIKE '%" + hash + "%' OR a::text LIKE '%" +
                     wrong_hash + "%'") == 0);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_FIXTURE_TEST_SUITE(check_session_ex, session_fixture)

BOOST_AUTO_TEST_CASE(a_valid_session_and_an_enabled_application_answer_0) {
    const auto app = unique("App");
    add_app(keeper::core::to_lower_utf8(app), "app-secret", "Android", true);
    authenticate_with_secret(session, login, secret);
    BOOST_TEST(check_session(session, app) == 0);
    BOOST_TEST(count("SELECT count(*) FROM audit_log WHERE operation = 'CheckSessionEx' AND app_id = lower('" + app +
                     "') AND result = 0") == 1);
}

BOOST_AUTO_TEST_CASE(an_unknown_or_unauthenticated_session_answers_2) {
    BOOST_TEST(check_session(session, "app") == 2);
    authenticate(session, login, wrong_hash);
    BOOST_TEST(check_session(session, "app") == 2);
}

BOOST_AUTO_TEST_CASE(an_expired_session_answers_3) {
    const auto app = unique("app");
    add_app(app, "s", "iOS", true);
    authenticate_with_secret(session, login, secret);
    age_session("24 hours 1 second");
    BOOST_TEST(check_session(session, app) == 3);
    cfg.session_ttl = std::chrono::hours{48};
    BOOST_TEST(check_session(session, app) == 0);
}

BOOST_AUTO_TEST_CASE(an_unknown_or_disabled_application_answers_10) {
    const auto off = unique("off");
    add_app(off, "s", "Android", false);
    authenticate_with_secret(session, login, secret);
    BOOST_TEST(check_session(session, unique("nope")) == 10);
    BOOST_TEST(check_session(session, off) == 10);
}

BOOST_AUTO_TEST_CASE(session_problems_come_before_application_problems) {
    BOOST_TEST(check_session(session, unique("nope")) == 2);
}

BOOST_AUTO_TEST_CASE(bad_formats_answer_1) {
    BOOST_TEST(check_session("bad id", "app") == 1);
    BOOST_TEST(check_session(session, "") == 1);
    BOOST_TEST(check_session(session, std::string(65, 'a')) == 1);
}

BOOST_AUTO_TEST_SUITE_END()
