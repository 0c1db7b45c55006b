// The operations of docs/api.md against PostgreSQL: what each operation does, every result code it can give, and
// that one login never reaches another's objects.
#include <boost/test/unit_test.hpp>

#include "core/domain/code_hash.hpp"
#include "core/api/text_util.hpp"
#include "keeperctl/provisioning.hpp"
#include "db_fixture.hpp"

using keeper::test::db_fixture;
namespace p = keeper::db;

namespace {

struct ops_fixture : db_fixture {
    user alice = new_user();
    user bob = new_user();

    int account_permits(const user& u, const std::string& p, const std::string& i, const std::string& m) {
        return call_op("AccountApi", "SetAccountPermits",
                       {{"sessionId", u.session}, {"acceptPayments", p}, {"acceptInvoices", i}, {"acceptMessages", m}});
    }
    int contact_permits(const user& u, const std::string& wmid, const std::string& flag) {
        return call_op("AccountApi", "SetContactPermitsEx",
                       {{"sessionId", u.session},
                        {"wmid", wmid},
                        {"acceptPayments", flag},
                        {"acceptInvoices", flag},
                        {"acceptMessages", flag},
                        {"dontUseConfirmation", flag}});
    }
    int finish(const user& u, long long tran, const std::string& code) {
        return call_op("AccountApi", "FinishCodeProtectedOperation",
                       {{"sessionId", u.session}, {"tranId", std::to_string(tran)}, {"protectionCode", code}});
    }
    int topup(const user& u, const std::string& purse, long long card, const std::string& amount) {
        return call_op(
            "AccountApi", "TopupPurseFromAtmCard",
            {{"sessionId", u.session}, {"purseDest", purse}, {"cardId", std::to_string(card)}, {"amount", amount}});
    }
    int confirm(const user& u, int profile, int task, const std::string& code) {
        return call_op("TelepayApi", "TelepaySchedulerConfirmCreate",
                       {{"sessionId", u.session},
                        {"profileId", std::to_string(profile)},
                        {"taskId", std::to_string(task)},
                        {"code", code}});
    }
    int rename(const user& u, int profile, const std::string& name) {
        return call_op("TelepayApi", "RenameTelepayProfile",
                       {{"sessionId", u.session}, {"id", std::to_string(profile)}, {"name", name}});
    }
    int subscribe(const user& u, const std::string& provider, const std::string& device, const std::string& tag = "1",
                  const std::string& locale = "1033") {
        return call_op("PushApi", "SubscribeWithTagAndLocale",
                       {{"sessionId", u.session},
                        {"provider", provider},
                        {"pushServiceUserId", device},
                        {"tag", tag},
                        {"locale", locale}});
    }
    int delivered(const user& u, int sms) {
        return call_op("PushApi", "MarkPushSmsAsDelivered", {{"sessionId", u.session}, {"id", std::to_string(sms)}});
    }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(permits, ops_fixture)

BOOST_AUTO_TEST_CASE(account_permits_are_stored_replaced_and_idempotent) {
    BOOST_TEST(account_permits(alice, "true", "false", "1") == 0);
    const auto row =
        "SELECT accept_payments::text || accept_invoices::text || accept_messages::text FROM account_permits a JOIN "
        "logins l ON l.id = a.login_id WHERE l.login = '" +
        alice.login + "'";
    BOOST_TEST(scalar(row) == "truefalsetrue");
    BOOST_TEST(account_permits(alice, "true", "false", "1") == 0);
    BOOST_TEST(account_permits(alice, "FALSE", "True", "0") == 0);
    BOOST_TEST(scalar(row) == "falsetruefalse");
    BOOST_TEST(count("SELECT count(*) FROM account_permits a JOIN logins l ON l.id = a.login_id WHERE l.login = '" +
                     alice.login + "'") == 1);
}

BOOST_AUTO_TEST_CASE(contact_permits_are_per_login_and_wmid) {
    BOOST_TEST(contact_permits(alice, "123456789012", "true") == 0);
    BOOST_TEST(contact_permits(bob, "123456789012", "false") == 0);
    BOOST_TEST(contact_permits(alice, "123456789012", "true") == 0);
    BOOST_TEST(scalar("SELECT dont_use_confirmation::text FROM contact_permits c JOIN logins l ON l.id = c.login_id "
                      "WHERE l.login = '" +
                      alice.login + "'") == "true");
    BOOST_TEST(
        scalar(
            "SELECT accept_payments::text FROM contact_permits c JOIN logins l ON l.id = c.login_id WHERE l.login = '" +
            bob.login + "'") == "false");
}

BOOST_AUTO_TEST_CASE(a_wmid_is_exactly_12_digits) {
    for (const std::string bad : {"12345678901", "1234567890123", "12345678901a", "", " 123456789012"}) {
        BOOST_TEST(contact_permits(alice, bad, "true") == 1, "wmid '" << bad << "'");
    }
    BOOST_TEST(count("SELECT count(*) FROM contact_permits c JOIN logins l ON l.id = c.login_id WHERE l.login = '" +
                     alice.login + "'") == 0);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_FIXTURE_TEST_SUITE(protected_transfers, ops_fixture)

BOOST_AUTO_TEST_CASE(the_right_code_completes_and_a_repeat_answers_0) {
    const long long tran = next_id();
    p::add_transfer(sql(), alice.login, tran, "100.00", "4321", {3600});
    BOOST_TEST(finish(alice, tran, "4321") == 0);
    BOOST_TEST(scalar("SELECT status FROM protected_transfers WHERE id = " + std::to_string(tran)) == "completed");
    BOOST_TEST(finish(alice, tran, "4321") == 0);
    BOOST_TEST(finish(alice, tran, "9999") == 8);
}

BOOST_AUTO_TEST_CASE(wrong_codes_answer_6_and_the_fifth_locks_for_good) {
    const long long tran = next_id();
    p::add_transfer(sql(), alice.login, tran, "5", "4321", {3600});
    for (int i = 1; i <= 4; ++i) BOOST_TEST(finish(alice, tran, "0000") == 6);
    BOOST_TEST(scalar("SELECT failed_attempts FROM protected_transfers WHERE id = " + std::to_string(tran)) == "4");
    BOOST_TEST(finish(alice, tran, "0000") == 7);
    BOOST_TEST(finish(alice, tran, "4321") == 7);
    BOOST_TEST(scalar("SELECT status FROM protected_transfers WHERE id = " + std::to_string(tran)) == "locked");
}

BOOST_AUTO_TEST_CASE(an_expired_transfer_answers_12_and_stays_pending) {
    const long long tran = next_id();
    p::add_transfer(sql(), alice.login, tran, "5", "4321", {-1});
    BOOST_TEST(finish(alice, tran, "4321") == 12);
    BOOST_TEST(finish(alice, tran, "0000") == 12);
    BOOST_TEST(scalar("SELECT status || failed_attempts FROM protected_transfers WHERE id = " + std::to_string(tran)) ==
               "pending0");
}

BOOST_AUTO_TEST_CASE(another_logins_or_a_missing_transfer_answers_5) {
    const long long tran = next_id();
    p::add_transfer(sql(), alice.login, tran, "5", "4321", {3600});
    BOOST_TEST(finish(bob, tran, "4321") == 5);
    BOOST_TEST(finish(bob, tran, "0000") == 5);
    BOOST_TEST(scalar("SELECT status || failed_attempts FROM protected_transfers WHERE id = " + std::to_string(tran)) ==
               "pending0");
    BOOST_TEST(finish(alice, next_id(), "4321") == 5);
}

BOOST_AUTO_TEST_CASE(bad_arguments_answer_1) {
    BOOST_TEST(finish(alice, 0, "4321") == 1);
    BOOST_TEST(finish(alice, -5, "4321") == 1);
    BOOST_TEST(finish(alice, 7, "") == 1);
    BOOST_TEST(finish(alice, 7, std::string(65, '1')) == 1);
}

BOOST_AUTO_TEST_CASE(codes_are_stored_salted_and_hashed) {
    const long long tran = next_id();
    p::add_transfer(sql(), alice.login, tran, "5", "secret-code-4321", {3600});
    const auto stored = scalar("SELECT code_hash FROM protected_transfers WHERE id = " + std::to_string(tran));
    BOOST_TEST(stored.find("secret-code-4321") == std::string::npos);
    BOOST_TEST(keeper::core::code_matches(stored, "secret-code-4321"));
    BOOST_TEST(keeper::core::make_code_hash("x") != keeper::core::make_code_hash("x"));  // salted
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_FIXTURE_TEST_SUITE(topups, ops_fixture)

BOOST_AUTO_TEST_CASE(a_topup_adds_exactly_to_the_purse_and_is_recorded) {
    const auto purse = purse_for(alice, "10.10");
    const auto card = card_for(alice);
    BOOST_TEST(topup(alice, purse, card, "0.2") == 0);
    BOOST_TEST(balance(purse) == "10.30");
    BOOST_TEST(topup(alice, purse, card, "0.1") == 0);
    BOOST_TEST(balance(purse) == "10.40");
    BOOST_TEST(count("SELECT count(*) FROM topups WHERE card_id = " + std::to_string(card)) == 2);  // not idempotent
}

BOOST_AUTO_TEST_CASE(a_call_waiting_on_a_locked_row_fails_after_lock_timeout_and_commits_nothing) {
    const auto purse = purse_for(alice, "5.00");
    const auto card = card_for(alice);
    keeper::db::pg_store short_wait{
        keeper::test::shared_database().url(), 1, {std::chrono::milliseconds{300}, std::chrono::milliseconds{5000}}};
    const auto topup_on = [&](keeper::core::store& s) {
        const std::string query =
            "sessionId=" + alice.session + "&purseDest=" + purse + "&cardId=" + std::to_string(card) + "&amount=1";
        auto r = keeper::test::request("GET", "/AccountApi.asmx/TopupPurseFromAtmCard", query);
        r.request_id = unique("rid");
        return keeper::core::handle_request(r, s, cfg);
    };
    pqxx::connection other{keeper::test::shared_database().url()};
    pqxx::work holder{other};
    holder.exec("SELECT 1 FROM purses WHERE purse = '" + purse + "' FOR UPDATE");  // the top-up's UPDATE waits
    const auto started = std::chrono::steady_clock::now();
    const auto refused = topup_on(short_wait);
    const auto waited = std::chrono::steady_clock::now() - started;
    BOOST_TEST(refused.response.status == 503);  // not applied: it may be repeated
    BOOST_TEST(refused.log.outcome == "fault=not_applied");
    BOOST_TEST(refused.log.detail == "SQL error 55P03 in topup");  // lock_not_available
    BOOST_TEST(waited < std::chrono::seconds{3});
    holder.commit();
    BOOST_TEST(balance(purse) == "5.00");
    BOOST_TEST(count("SELECT count(*) FROM topups WHERE card_id = " + std::to_string(card)) == 0);
    BOOST_TEST(topup_on(short_wait).response.status == 200);  // the same store serves on
    BOOST_TEST(balance(purse) == "6.00");
}

BOOST_AUTO_TEST_CASE(the_purse_letter_may_be_lower_case) {
    const auto purse = purse_for(alice);
    std::string lower = purse;
    lower[0] = 'z';
    BOOST_TEST(topup(alice, lower, card_for(alice), "1") == 0);
    BOOST_TEST(balance(purse) == "1.00");
}

BOOST_AUTO_TEST_CASE(another_logins_purse_or_card_or_a_blocked_card_answers_5) {
    const auto mine = purse_for(alice), theirs = purse_for(bob);
    const auto my_card = card_for(alice), their_card = card_for(bob), blocked = card_for(alice, std::nullopt, true);
    BOOST_TEST(topup(alice, theirs, my_card, "1") == 5);
    BOOST_TEST(topup(alice, mine, their_card, "1") == 5);
    BOOST_TEST(topup(alice, mine, blocked, "1") == 5);
    BOOST_TEST(topup(alice, "Z999999999999", my_card, "1") == 5);
    BOOST_TEST(balance(mine) == "0.00");
    BOOST_TEST(balance(theirs) == "0.00");
}

BOOST_AUTO_TEST_CASE(bad_amounts_purses_and_cards_answer_1) {
    const auto purse = purse_for(alice);
    const auto card = card_for(alice);
    for (const std::string amount : {"0", "-1", "10.001", "NaN", "Infinity", "-Infinity", "0.001"}) {
        BOOST_TEST(topup(alice, purse, card, amount) == 1, "amount " << amount);
    }
    for (const std::string bad : {"A123456789012", "Z12345678901", "Z1234567890123", "ZZ23456789012", ""}) {
        BOOST_TEST(topup(alice, bad, card, "1") == 1, "purse " << bad);
    }
    BOOST_TEST(topup(alice, purse, 0, "1") == 1);
    BOOST_TEST(balance(purse) == "0.00");
}

BOOST_AUTO_TEST_CASE(above_the_per_operation_limit_answers_9) {
    const auto purse = purse_for(alice);
    const auto card = card_for(alice, std::string{"100000"});
    BOOST_TEST(topup(alice, purse, card, "15000.01") == 9);
    BOOST_TEST(topup(alice, purse, card, "15000") == 0);
    cfg.topup_max_amount = "10";
    BOOST_TEST(topup(alice, purse, card, "10.5") == 9);
    BOOST_TEST(balance(purse) == "15000.00");
}

BOOST_AUTO_TEST_CASE(the_cards_24_hour_limit_answers_9_and_changes_nothing) {
    const auto purse = purse_for(alice);
    const auto card = card_for(alice, std::string{"100"});
    BOOST_TEST(topup(alice, purse, card, "60") == 0);
    BOOST_TEST(topup(alice, purse, card, "40.01") == 9);
    BOOST_TEST(topup(alice, purse, card, "40") == 0);  // exactly the limit is allowed
    BOOST_TEST(topup(alice, purse, card, "0.01") == 9);
    BOOST_TEST(balance(purse) == "100.00");
    // A day later (both the record and the limit's window moved back in time):
    exec("UPDATE topups SET created_at = now() - interval '24 hours 1 second' WHERE card_id = " + std::to_string(card));
    exec("UPDATE card_recent_topups SET created_at = now() - interval '24 hours 1 second' WHERE card_id = " +
         std::to_string(card));
    BOOST_TEST(topup(alice, purse, card, "100") == 0);
}

BOOST_AUTO_TEST_CASE(a_card_without_its_own_limit_uses_the_configured_one) {
    const auto purse = purse_for(alice);
    const auto card = card_for(alice);
    cfg.card_daily_limit = "20";
    BOOST_TEST(topup(alice, purse, card, "15") == 0);
    BOOST_TEST(topup(alice, purse, card, "5.01") == 9);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_FIXTURE_TEST_SUITE(telepay, ops_fixture)

BOOST_AUTO_TEST_CASE(confirming_a_task_follows_the_code_rules) {
    const int profile = next_id();
    p::add_profile(sql(), alice.login, profile, "Rent");
    p::add_task(sql(), profile, 1, "777", {3600});
    p::add_task(sql(), profile, 2, "777", {3600});
    p::add_task(sql(), profile, 3, "777", {-1});
    BOOST_TEST(confirm(alice, profile, 1, "777") == 0);
    BOOST_TEST(scalar("SELECT status FROM telepay_tasks WHERE profile_id = " + std::to_string(profile) +
                      " AND id = 1") == "active");
    BOOST_TEST(confirm(alice, profile, 1, "777") == 0);
    BOOST_TEST(confirm(alice, profile, 1, "778") == 8);
    for (int i = 0; i < 4; ++i) BOOST_TEST(confirm(alice, profile, 2, "000") == 6);
    BOOST_TEST(confirm(alice, profile, 2, "000") == 7);
    BOOST_TEST(confirm(alice, profile, 2, "777") == 7);
    BOOST_TEST(confirm(alice, profile, 3, "777") == 12);
}

BOOST_AUTO_TEST_CASE(tasks_are_reached_only_through_the_logins_own_profile) {
    const int profile = next_id(), other = next_id();
    p::add_profile(sql(), alice.login, profile, "Mine");
    p::add_profile(sql(), alice.login, other, "Also mine");
    p::add_task(sql(), profile, 1, "777", {3600});
    BOOST_TEST(confirm(bob, profile, 1, "777") == 5);
    BOOST_TEST(confirm(alice, other, 1, "777") == 5);
    BOOST_TEST(confirm(alice, profile, 2, "777") == 5);
    BOOST_TEST(confirm(alice, 0, 1, "777") == 1);
    BOOST_TEST(confirm(alice, profile, 1, "") == 1);
    BOOST_TEST(scalar("SELECT status FROM telepay_tasks WHERE profile_id = " + std::to_string(profile)) == "pending");
}

BOOST_AUTO_TEST_CASE(renaming_trims_accepts_cyrillic_and_is_idempotent) {
    const int profile = next_id();
    p::add_profile(sql(), alice.login, profile, "Old");
    BOOST_TEST(rename(alice, profile, "  Квартплата \t") == 0);
    BOOST_TEST(scalar("SELECT name FROM telepay_profiles WHERE id = " + std::to_string(profile)) == "Квартплата");
    BOOST_TEST(rename(alice, profile, "Квартплата") == 0);
    std::string longest;
    for (int i = 0; i < 64; ++i) longest += "Я";
    BOOST_TEST(rename(alice, profile, longest) == 0);
}

BOOST_AUTO_TEST_CASE(bad_names_answer_1_and_other_logins_profiles_5) {
    const int profile = next_id();
    p::add_profile(sql(), alice.login, profile, "Old");
    BOOST_TEST(rename(alice, profile, "") == 1);
    BOOST_TEST(rename(alice, profile, "   ") == 1);
    BOOST_TEST(rename(alice, profile, std::string(65, 'a')) == 1);
    BOOST_TEST(rename(alice, profile,
                      "a\x01"
                      "b") == 1);
    BOOST_TEST(rename(bob, profile, "Mine now") == 5);
    BOOST_TEST(rename(alice, next_id(), "x") == 5);
    BOOST_TEST(scalar("SELECT name FROM telepay_profiles WHERE id = " + std::to_string(profile)) == "Old");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_FIXTURE_TEST_SUITE(push, ops_fixture)

BOOST_AUTO_TEST_CASE(subscribing_stores_the_device_and_a_device_moves_with_its_login) {
    const auto device = unique("dev");
    BOOST_TEST(subscribe(alice, "Android", device, "5", "1049") == 0);
    const auto owner =
        "SELECT l.login || ' ' || s.tag || ' ' || s.locale FROM push_subscriptions s JOIN logins l ON l.id = "
        "s.login_id WHERE s.provider = 'Android' AND s.push_service_user_id = '" +
        device + "'";
    BOOST_TEST(scalar(owner) == alice.login + " 5 1049");
    BOOST_TEST(subscribe(alice, "Android", device, "6", "1033") == 0);
    BOOST_TEST(scalar(owner) == alice.login + " 6 1033");
    BOOST_TEST(subscribe(bob, "Android", device, "6", "1033") == 0);
    BOOST_TEST(scalar(owner) == bob.login + " 6 1033");
    BOOST_TEST(subscribe(alice, "iOS", device) == 0);  // another provider: another device
    BOOST_TEST(count("SELECT count(*) FROM push_subscriptions WHERE push_service_user_id = '" + device + "'") == 2);
}

BOOST_AUTO_TEST_CASE(bad_subscriptions_answer_1) {
    BOOST_TEST(subscribe(alice, "Undefined", "dev") == 1);
    BOOST_TEST(subscribe(alice, "Android", "") == 1);
    BOOST_TEST(subscribe(alice, "Android", std::string(513, 'd')) == 1);
    BOOST_TEST(subscribe(alice, "Android", std::string(512, 'd')) == 0);
    BOOST_TEST(subscribe(alice, "Android", "dev", "1", "1050") == 1);
    BOOST_TEST(subscribe(alice, "Android", "dev", "1", "0") == 1);
}

BOOST_AUTO_TEST_CASE(an_application_subscribes_its_users_devices_with_its_provider) {
    const auto app = unique("App");
    p::add_app(sql(), app, "app-secret", "iOS", true);
    const auto device = unique("appdev");
    const auto hash = keeper::core::expected_auth_hash(app, "app-secret", "User-1");
    const auto sub = [&](const std::string& a, const std::string& u, const std::string& h) {
        return call_op("PushApi", "SubscribeAppWithTagAndLocale",
                       {{"appId", a},
                        {"userId", u},
                        {"pushServiceUserId", device},
                        {"tag", "9"},
                        {"locale", "1049"},
                        {"authHash", h}});
    };
    BOOST_TEST(sub(app, "User-1", hash) == 0);
    BOOST_TEST(scalar("SELECT provider || ' ' || user_id FROM app_push_subscriptions WHERE push_service_user_id = '" +
                      device + "'") == "iOS user-1");
    BOOST_TEST(sub(app, "user-2", keeper::core::expected_auth_hash(app, "app-secret", "user-2")) == 0);
    BOOST_TEST(scalar("SELECT user_id FROM app_push_subscriptions WHERE push_service_user_id = '" + device + "'") ==
               "user-2");
    BOOST_TEST(sub(app, "User-1", std::string(32, '0')) == 4);
    BOOST_TEST(sub(unique("nope"), "User-1", hash) == 4);
    BOOST_TEST(sub(app, "User-1", "short") == 1);
    BOOST_TEST(sub(app, "", hash) == 1);                    // userId empty
    BOOST_TEST(sub(app, std::string(65, 'u'), hash) == 1);  // userId too long
    BOOST_TEST(sub(app, "bad\tuser", hash) == 1);           // userId with a control character
    BOOST_TEST(sub("", "User-1", hash) == 1);               // appId empty
    const auto off = unique("off");
    p::add_app(sql(), off, "s", "Android", false);
    BOOST_TEST(sub(off, "u", keeper::core::expected_auth_hash(off, "s", "u")) == 4);
}

// The guard per application and userId (docs/api-decisions.md, "Sessions and applications"): with
// app_auth_max_failures failures of one (application, userId) in the window the answer is 11
// whatever the hash, nothing is subscribed, and 11 is no failure of its own; a success forgives
// the pair's failures, as Authenticate's does a login's; the userId counts as the hash reads it
// (lower-case); another userId or application is not touched; the window's end frees it.
BOOST_AUTO_TEST_CASE(an_application_user_with_too_many_failures_answers_11_until_the_window_passes) {
    cfg.app_auth_max_failures = 3;
    const auto app = unique("Throttled");
    const auto other = unique("Other");
    p::add_app(sql(), app, "app-secret", "Android", true);
    p::add_app(sql(), other, "app-secret", "Android", true);
    const auto device = unique("throttled-dev");
    const auto sub = [&](const std::string& a, const std::string& who, const std::string& h) {
        return call_op("PushApi", "SubscribeAppWithTagAndLocale",
                       {{"appId", a},
                        {"userId", who},
                        {"pushServiceUserId", device},
                        {"tag", "1"},
                        {"locale", "1033"},
                        {"authHash", h}});
    };
    const auto right = [](const std::string& a, const std::string& who) {
        return keeper::core::expected_auth_hash(a, "app-secret", who);
    };
    const auto failures = [&](const std::string& a) {
        return count("SELECT count(*) FROM app_auth_failures WHERE app_id = lower('" + a + "')");
    };
    const std::string wrong(32, '0');
    BOOST_TEST(sub(app, "u1", wrong) == 4);
    BOOST_TEST(failures(app) == 1);
    BOOST_TEST(sub(app, "u1", right(app, "u1")) == 0);
    BOOST_TEST(failures(app) == 0);  // forgiven
    for (int i = 0; i < 3; ++i) BOOST_TEST(sub(app, "u1", wrong) == 4);
    BOOST_TEST(sub(app, "u1", right(app, "u1")) == 11);
    BOOST_TEST(sub(app, "U1", right(app, "U1")) == 11);
    BOOST_TEST(sub(app, "u1", wrong) == 11);
    BOOST_TEST(failures(app) == 3);  // 11 is not a failure
    BOOST_TEST(count("SELECT count(*) FROM audit_log WHERE app_id = lower('" + app + "') AND result = 11") == 3);
    BOOST_TEST(sub(app, "u2", right(app, "u2")) == 0);  // the application's other users are not held
    BOOST_TEST(sub(other, "u1", right(other, "u1")) == 0);
    exec("UPDATE app_auth_failures SET failed_at = now() - interval '16 minutes' WHERE app_id = lower('" + app + "')");
    exec("DELETE FROM app_push_subscriptions WHERE push_service_user_id = '" + device + "'");
    BOOST_TEST(sub(app, "u1", right(app, "u1")) == 0);
    BOOST_TEST(count("SELECT count(*) FROM app_push_subscriptions WHERE push_service_user_id = '" + device + "'") == 1);
}

// An address holds nobody (docs/api-decisions.md, "Sessions and applications"): calls that name no
// application, or a disabled one, guess no secret and count for nothing; wrong hashes from one
// client hold the pair they name, not the client's other calls. An IPv6 client, IPv4, the same.
BOOST_AUTO_TEST_CASE(no_address_is_held_for_its_failures) {
    cfg.app_auth_max_failures = 3;
    const auto app = unique("Shared");
    const auto off = unique("Disabled");
    p::add_app(sql(), app, "app-secret", "Android", true);
    p::add_app(sql(), off, "app-secret", "Android", false);
    const auto sub = [&](const std::string& from, const std::string& a, const std::string& who, bool right) {
        const auto hash = right ? keeper::core::expected_auth_hash(a, "app-secret", who) : std::string(32, '0');
        const auto query = "appId=" + a + "&userId=" + who + "&pushServiceUserId=" + unique("dev") +
                           "&tag=1&locale=1033&authHash=" + hash;
        auto r = keeper::test::request("GET", "/PushApi.asmx/SubscribeAppWithTagAndLocale", query);
        r.request_id = unique("rid");
        r.remote_addr = from;
        const auto out = keeper::core::handle_request(r, store, cfg);
        const auto& body = out.response.body;
        const auto open = body.find('>', body.find("<int"));
        return std::stoi(body.substr(open + 1, body.find("</int>") - open - 1));
    };
    for (const std::string from : {"198.51.100.7", "2001:db8:1:2::7"}) {
        const auto ghost = unique("ghost");
        for (int i = 0; i < 5; ++i) BOOST_TEST(sub(from, ghost, "victim", true) == 4);
        for (int i = 0; i < 5; ++i) BOOST_TEST(sub(from, off, "victim", true) == 4);
        BOOST_TEST(count("SELECT count(*) FROM app_auth_failures WHERE app_id IN (lower('" + ghost + "'), lower('" +
                         off + "'))") == 0);
        const auto victim = unique("victim");
        for (int i = 0; i < 3; ++i) BOOST_TEST(sub(from, app, victim, false) == 4);
        BOOST_TEST(sub(from, app, victim, true) == 11);
        BOOST_TEST(sub(from, app, unique("neighbour"), true) == 0);
        BOOST_TEST(count("SELECT count(*) FROM audit_log WHERE app_id = lower('" + ghost + "') AND result = 4") == 5);
    }
}

BOOST_AUTO_TEST_CASE(push_sms_delivery_keeps_the_first_time) {
    const int sms = next_id();
    p::add_sms(sql(), alice.login, sms);
    BOOST_TEST(delivered(alice, sms) == 0);
    const auto first = scalar("SELECT delivered_at FROM push_sms WHERE id = " + std::to_string(sms));
    BOOST_TEST(first != "NULL");
    BOOST_TEST(delivered(alice, sms) == 0);
    BOOST_TEST(scalar("SELECT delivered_at FROM push_sms WHERE id = " + std::to_string(sms)) == first);
    BOOST_TEST(delivered(bob, sms) == 5);
    BOOST_TEST(delivered(alice, next_id()) == 5);
    BOOST_TEST(delivered(alice, 0) == 1);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_FIXTURE_TEST_SUITE(session_checks, ops_fixture)

// Every operation that takes a sessionId: unknown → 2, expired → 3, bad format → 1.
BOOST_AUTO_TEST_CASE(every_session_operation_resolves_the_session_first) {
    const std::vector<std::pair<std::string, std::vector<std::pair<std::string, std::string>>>> calls{
        {"AccountApi/SetContactPermitsEx",
         {{"wmid", "123456789012"},
          {"acceptPayments", "1"},
          {"acceptInvoices", "1"},
          {"acceptMessages", "1"},
          {"dontUseConfirmation", "1"}}},
        {"AccountApi/SetAccountPermits", {{"acceptPayments", "1"}, {"acceptInvoices", "1"}, {"acceptMessages", "1"}}},
        {"AccountApi/FinishCodeProtectedOperation", {{"tranId", "1"}, {"protectionCode", "1"}}},
        {"AccountApi/TopupPurseFromAtmCard", {{"purseDest", "Z123456789012"}, {"cardId", "1"}, {"amount", "1"}}},
        {"AccountApi/CheckSessionEx", {{"appId", "a"}}},
        {"TelepayApi/TelepaySchedulerConfirmCreate", {{"profileId", "1"}, {"taskId", "1"}, {"code", "1"}}},
        {"TelepayApi/RenameTelepayProfile", {{"id", "1"}, {"name", "n"}}},
        {"PushApi/SubscribeWithTagAndLocale",
         {{"provider", "Android"}, {"pushServiceUserId", "d"}, {"tag", "1"}, {"locale", "1033"}}},
        {"PushApi/MarkPushSmsAsDelivered", {{"id", "1"}}},
    };
    exec(
        "UPDATE sessions SET authenticated_at = now() - interval '2 days' WHERE session_hash = "
        "keeper_session_hash(lower('" +
        bob.session + "'))");
    for (const auto& [path, rest] : calls) {
        const auto slash = path.find('/');
        const auto with = [&](const std::string& session) {
            auto fields = rest;
            fields.insert(fields.begin(), {"sessionId", session});
            return call_op(path.substr(0, slash), path.substr(slash + 1), fields);
        };
        BOOST_TEST(with(unique("unknown")) == 2, path);
        BOOST_TEST(with(bob.session) == 3, path);
        BOOST_TEST(with("not a session") == 1, path);
    }
}

BOOST_AUTO_TEST_CASE(every_call_that_uses_the_database_is_audited_once) {
    const auto before = count("SELECT count(*) FROM audit_calls WHERE login = '" + alice.login + "'");
    account_permits(alice, "1", "1", "1");
    subscribe(alice, "Android", unique("d"));
    delivered(alice, next_id());
    BOOST_TEST(count("SELECT count(*) FROM audit_calls WHERE login = '" + alice.login + "'") == before + 3);
    BOOST_TEST(count("SELECT count(*) FROM audit_calls WHERE login = '" + alice.login +
                     "' AND operation = 'MarkPushSmsAsDelivered' AND result = 5") == 1);
}

BOOST_AUTO_TEST_SUITE_END()
