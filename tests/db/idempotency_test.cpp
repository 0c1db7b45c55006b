// The Idempotency-Key against PostgreSQL (docs/api-decisions.md, "Idempotency-Key"): a keyed
// write runs once and its repeats answer its result; the key with other parameters is refused;
// callers never share keys; results that advise to come back are not kept; a failed
// authentication records none; a repeat after authenticating again replays; concurrent repeats
// apply once. keeperctl maintain's purge of old keys is in lifecycle_test.cpp.
#include <boost/test/unit_test.hpp>

#include <future>
#include <thread>

#include "core/domain/call_fingerprint.hpp"
#include "core/domain/operation_table.hpp"
#include "db/secrets/key_file.hpp"
#include "db/store/pg_store.hpp"
#include "keeperctl/provisioning.hpp"
#include "db_fixture.hpp"

using keeper::test::db_fixture;
namespace p = keeper::db;

namespace {

struct keyed_fixture : db_fixture {
    user alice = new_user();
    user bob = new_user();
    std::string key = unique("key-");
    std::string purse = purse_for(alice);
    long long card = card_for(alice);

    // A store whose worker has this key file (secret_keyring lines, the current key first).
    static std::unique_ptr<keeper::db::pg_store> store_with(const std::string& key_lines) {
        return std::make_unique<keeper::db::pg_store>(
            keeper::test::shared_database().url(), 1, keeper::db::database_timeouts{},
            std::make_shared<const keeper::db::key_file>(keeper::db::secret_keyring::parse(key_lines)));
    }
    keyed_answer topup(const user& u, const std::string& dest, long long card_id, const std::string& amount,
                       const std::string& k, keeper::core::store* through = nullptr) {
        return call_keyed(
            "AccountApi", "TopupPurseFromAtmCard",
            {{"sessionId", u.session}, {"purseDest", dest}, {"cardId", std::to_string(card_id)}, {"amount", amount}}, k,
            through);
    }
    keyed_answer rename(const user& u, int profile, const std::string& name, const std::string& k) {
        return call_keyed("TelepayApi", "RenameTelepayProfile",
                          {{"sessionId", u.session}, {"id", std::to_string(profile)}, {"name", name}}, k);
    }
    // Alice's Authenticate of `session`, proven with `secret`, under key k.
    keyed_answer authenticate_keyed(const std::string& session, const std::string& secret, const std::string& k) {
        return call_keyed("SimpleAuthApi", "Authenticate",
                          {{"sessionId", session},
                           {"login", alice.login},
                           {"authHash", keeper::core::expected_auth_hash(alice.login, secret, session)}},
                          k);
    }
    long long keys_of(const std::string& k) {
        return count("SELECT count(*) FROM idempotency_keys WHERE key = '" + k + "'");
    }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(idempotency_keys, keyed_fixture)

BOOST_AUTO_TEST_CASE(a_keyed_topup_runs_once_and_its_repeats_answer_its_result) {
    const auto first = topup(alice, purse, card, "10.5", key);
    BOOST_TEST(first.status == 200);
    BOOST_TEST(first.result == 0);
    BOOST_TEST(!first.replayed);
    for (int i = 0; i < 3; ++i) {
        const auto repeat = topup(alice, purse, card, "10.50", key);  // the same amount, written otherwise
        BOOST_TEST(repeat.result == 0);
        BOOST_TEST(repeat.replayed);
    }
    BOOST_TEST(balance(purse) == "10.50");
    BOOST_TEST(count("SELECT count(*) FROM topups WHERE card_id = " + std::to_string(card)) == 1);
    BOOST_TEST(scalar("SELECT login || ' ' || operation || ' ' || result || ' ' || octet_length(fingerprint) "
                      "FROM idempotency_keys WHERE key = '" +
                      key + "'") == alice.login + " TopupPurseFromAtmCard 0 32");
    // A repeat changes nothing, its audit row included: the audit log holds the calls that ran.
    BOOST_TEST(count("SELECT count(*) FROM audit_log a JOIN idempotency_keys k USING (request_id) WHERE k.key = '" +
                     key + "'") == 1);
    // Without a key the same top-up is a new one.
    BOOST_TEST(topup(alice, purse, card, "10.5", unique("other-")).result == 0);
    BOOST_TEST(balance(purse) == "21.00");
}

BOOST_AUTO_TEST_CASE(the_key_with_other_parameters_or_another_operation_is_refused_with_422) {
    BOOST_TEST(topup(alice, purse, card, "5", key).result == 0);
    const auto other_amount = topup(alice, purse, card, "6", key);
    BOOST_TEST(other_amount.status == 422);
    BOOST_TEST(!other_amount.replayed);
    BOOST_TEST(rename(alice, 1, "x", key).status == 422);
    BOOST_TEST(balance(purse) == "5.00");
    BOOST_TEST(keys_of(key) == 1);
}

// The fingerprint is stored keyed (docs/design.md, "Idempotency keys"): HMAC under the key file's
// current key, not the plain digest a short protection code could be guessed against. A repeat
// matches under any key of the file (a rotation keeps the old key below the new one), and a plain
// digest the previous release recorded still replays; once the old key is gone from the file,
// the repeat is refused (422), never run again.
BOOST_AUTO_TEST_CASE(fingerprints_are_keyed_and_a_repeat_matches_under_any_key_of_the_file) {
    using keeper::db::secret_keyring;
    const auto k1 = secret_keyring::new_key_line("k1");
    const auto k2 = secret_keyring::new_key_line("k2");
    const auto before_rotation = store_with(k1);
    const auto rotated = store_with(k2 + "\n" + k1);
    const auto old_key_removed = store_with(k2);
    const auto fingerprint_of = [&](const std::string& k) {
        return scalar("SELECT encode(fingerprint, 'hex') FROM idempotency_keys WHERE key = '" + k + "'");
    };
    BOOST_TEST(topup(alice, purse, card, "10", key, before_rotation.get()).result == 0);
    const auto unkeyed = unique("key-");  // the fixture's store has no key file: as the previous release
    BOOST_TEST(topup(alice, purse, card, "10", unkeyed).result == 0);
    const auto plain = fingerprint_of(unkeyed);
    BOOST_TEST(fingerprint_of(key) != plain);
    BOOST_TEST(fingerprint_of(key) == secret_keyring::parse(k1).keyed_digests(plain).front());

    BOOST_TEST(topup(alice, purse, card, "10", key, rotated.get()).replayed);
    BOOST_TEST(topup(alice, purse, card, "10", unkeyed, rotated.get()).replayed);
    BOOST_TEST(topup(alice, purse, card, "10", key, old_key_removed.get()).status == 422);
    BOOST_TEST(balance(purse) == "20.00");
}

// Hosts are reloaded one at a time in a key rotation (docs/operations.md, "The secret key"), and
// upgraded one at a time in a release: a keyed repeat after "outcome unknown" may reach a host
// that has only the old key, or the previous release's worker. Every repeat with the same key
// answers the recorded call, or, where the previous release cannot compare (its unkeyed digest
// against a keyed record), changes nothing and tells it to repeat (55P03, which that release
// answers 409): never 422, "a new call needs a new key", after which an obeying client writes twice.
BOOST_AUTO_TEST_CASE(a_keyed_repeat_replays_on_every_host_of_a_rotation_and_an_upgrade) {
    using keeper::db::secret_keyring;
    const auto k1 = secret_keyring::new_key_line("k1");
    const auto k2 = secret_keyring::new_key_line("k2");
    const auto reloaded = store_with(k2 + "\n" + k1);  // this host has the new key, the old one below it
    const auto not_yet = store_with(k1);               // this one still has only the old key
    const auto on_reloaded = unique("key-");
    BOOST_TEST(topup(alice, purse, card, "10", on_reloaded, reloaded.get()).result == 0);
    const auto repeat = topup(alice, purse, card, "10", on_reloaded, not_yet.get());
    BOOST_TEST(repeat.status == 200);
    BOOST_TEST(repeat.replayed);
    const auto on_not_yet = unique("key-");
    BOOST_TEST(topup(alice, purse, card, "10", on_not_yet, not_yet.get()).result == 0);
    BOOST_TEST(topup(alice, purse, card, "10", on_not_yet, reloaded.get()).replayed);
    BOOST_TEST(topup(alice, purse, card, "11", on_reloaded, not_yet.get()).status ==
               422);  // other parameters still are
    BOOST_TEST(balance(purse) == "20.00");
    // The previous release's worker repeats a key this release recorded, with its unkeyed digest
    // (read from a key recorded without a key file, for the same call).
    const auto unkeyed = unique("key-");
    BOOST_TEST(topup(alice, purse, card, "10", unkeyed).result == 0);
    const auto plain = scalar("SELECT encode(fingerprint, 'hex') FROM idempotency_keys WHERE key = '" + unkeyed + "'");
    pqxx::work tx{sql()};
    const auto old_worker_repeat = [&] {
        tx.exec_params(
            "SELECT keeper_topup($1, $2, $3, $4, $5, $6, $7::numeric, $8::numeric, $9::numeric, $10, $11, $12)",
            unique("rid"), "TopupPurseFromAtmCard", alice.session, 86400, purse, card, "10", "15000", "50000",
            on_reloaded, plain, true);
    };
    BOOST_CHECK_EXCEPTION(old_worker_repeat(), pqxx::sql_error,
                          [](const pqxx::sql_error& e) { return std::string{e.sqlstate()} == "55P03"; });
    tx.abort();
    BOOST_TEST(balance(purse) == "30.00");
}

BOOST_AUTO_TEST_CASE(one_callers_key_never_answers_or_changes_another_callers_call) {
    const auto alices = purse_for(alice), bobs = purse_for(bob);
    const auto alice_card = card_for(alice), bob_card = card_for(bob);
    BOOST_TEST(topup(alice, alices, alice_card, "7", key).result == 0);
    const auto bobs_call = topup(bob, bobs, bob_card, "3", key);  // other parameters, the same key
    BOOST_TEST(bobs_call.status == 200);
    BOOST_TEST(bobs_call.result == 0);
    BOOST_TEST(!bobs_call.replayed);
    BOOST_TEST(balance(bobs) == "3.00");
    // Bob naming Alice's purse and card with her key is his own call: it finds nothing of his.
    const auto probe = topup(bob, alices, alice_card, "7", key);
    BOOST_TEST(probe.status == 422);  // his key holds his own earlier call
    const auto fresh = topup(bob, alices, alice_card, "7", unique("probe-"));
    BOOST_TEST(fresh.result == 5);
    BOOST_TEST(!fresh.replayed);
    BOOST_TEST(balance(alices) == "7.00");
    BOOST_TEST(keys_of(key) == 2);
}

BOOST_AUTO_TEST_CASE(a_recorded_refusal_is_answered_again_even_once_the_call_would_succeed) {
    const int profile = next_id();
    const auto first = rename(alice, profile, "Rent", key);
    BOOST_TEST(first.result == 5);  // no such profile yet
    p::add_profile(sql(), alice.login, profile, "Old");
    const auto repeat = rename(alice, profile, "Rent", key);
    BOOST_TEST(repeat.result == 5);
    BOOST_TEST(repeat.replayed);
    BOOST_TEST(scalar("SELECT name FROM telepay_profiles WHERE id = " + std::to_string(profile)) == "Old");
    BOOST_TEST(rename(alice, profile, "Rent", unique("new-")).result == 0);
}

BOOST_AUTO_TEST_CASE(a_session_result_is_not_kept_so_the_call_runs_after_authenticating) {
    const auto session = unique("sess");
    const int profile = next_id();
    p::add_profile(sql(), alice.login, profile, "Old");
    const user later{alice.login, session};
    BOOST_TEST(rename(later, profile, "New", key).result == 2);  // the session is not bound yet
    BOOST_TEST(keys_of(key) == 0);
    BOOST_TEST_REQUIRE(authenticate_with_secret(session, alice.login, "secret") == 0);
    const auto again = rename(later, profile, "New", key);
    BOOST_TEST(again.result == 0);
    BOOST_TEST(!again.replayed);
    exec("UPDATE sessions SET authenticated_at = now() - interval '2 days' WHERE session_hash = keeper_session_hash('" +
         session + "')");
    const auto expired = rename(later, profile, "New", key);  // recognised: the caller is known
    BOOST_TEST(expired.result == 0);
    BOOST_TEST(expired.replayed);
}

BOOST_AUTO_TEST_CASE(a_repeated_wrong_code_spends_no_attempt) {
    const long long tran = next_id();
    p::add_transfer(sql(), alice.login, tran, "100.00", "4321", {3600});
    const auto finish = [&](const std::string& code, const std::string& k) {
        return call_keyed("AccountApi", "FinishCodeProtectedOperation",
                          {{"sessionId", alice.session}, {"tranId", std::to_string(tran)}, {"protectionCode", code}},
                          k);
    };
    BOOST_TEST(finish("0000", key).result == 6);
    for (int i = 0; i < 5; ++i) BOOST_TEST(finish("0000", key).replayed);
    BOOST_TEST(scalar("SELECT failed_attempts FROM protected_transfers WHERE id = " + std::to_string(tran)) == "1");
    const auto right = unique("right-");
    BOOST_TEST(finish("4321", right).result == 0);
    const auto repeat = finish("4321", right);
    BOOST_TEST(repeat.result == 0);
    BOOST_TEST(repeat.replayed);
    // The confirmation carries its login by id; the key row still names the login.
    BOOST_TEST(scalar("SELECT login FROM idempotency_keys WHERE key = '" + right + "'") == alice.login);
}

BOOST_AUTO_TEST_CASE(applications_and_authenticate_keep_keys_under_their_own_caller) {
    const auto app = unique("App"), other = unique("App");
    p::add_app(sql(), app, "s1", "iOS", true);
    p::add_app(sql(), other, "s2", "iOS", true);
    const auto subscribe = [&](const std::string& a, const std::string& secret) {
        return call_keyed("PushApi", "SubscribeAppWithTagAndLocale",
                          {{"appId", a},
                           {"userId", "u1"},
                           {"pushServiceUserId", unique("dev")},
                           {"tag", "1"},
                           {"locale", "1033"},
                           {"authHash", keeper::core::expected_auth_hash(a, secret, "u1")}},
                          key);
    };
    BOOST_TEST(subscribe(app, "s1").result == 0);
    BOOST_TEST(subscribe(other, "s2").result == 0);  // another application: its own call
    BOOST_TEST(count("SELECT count(*) FROM idempotency_keys WHERE key = '" + key + "' AND app_id IS NOT NULL") == 2);
    const auto session = unique("sess");
    const auto auth = [&](const std::string& k) { return authenticate_keyed(session, "secret", k); };
    const auto k2 = unique("auth-");
    BOOST_TEST(auth(k2).result == 0);
    BOOST_TEST(auth(k2).replayed);
    BOOST_TEST(scalar("SELECT login FROM idempotency_keys WHERE key = '" + k2 + "'") == alice.login);
}

// The key's scope is the caller the session proves, and the fingerprint the call's meaning: a
// client that authenticates again (a new session id) and repeats its keyed top-up, or writes the
// purse in lower case, repeats the same call.
BOOST_AUTO_TEST_CASE(a_repeat_after_authenticating_again_or_with_the_purse_in_lower_case_replays) {
    BOOST_TEST(topup(alice, purse, card, "12.5", key).result == 0);
    const user again{alice.login, unique("sess")};
    BOOST_TEST_REQUIRE(authenticate_with_secret(again.session, alice.login, "secret") == 0);
    const auto repeat = topup(again, purse, card, "12.50", key);
    BOOST_TEST(repeat.status == 200);
    BOOST_TEST(repeat.result == 0);
    BOOST_TEST(repeat.replayed);
    std::string lower = purse;
    lower[0] = 'z';
    const auto lower_case = topup(again, lower, card, "12.5", key);
    BOOST_TEST(lower_case.replayed);
    BOOST_TEST(balance(purse) == "12.50");
    BOOST_TEST(count("SELECT count(*) FROM topups WHERE card_id = " + std::to_string(card)) == 1);
    BOOST_TEST(topup(again, purse, card, "13", key).status == 422);  // another amount is another call
}

// Authenticate binds the session id it is given: the same key for another session is another
// call (422), never a replay of "0" for a session that stays unauthenticated.
BOOST_AUTO_TEST_CASE(a_keyed_authenticate_for_another_session_is_refused_not_replayed) {
    const auto first = unique("sess");
    const auto second = unique("sess");
    const auto auth = [&](const std::string& session) { return authenticate_keyed(session, "secret", key); };
    BOOST_TEST(auth(first).result == 0);
    const auto other = auth(second);
    BOOST_TEST(other.status == 422);
    BOOST_TEST(!other.replayed);
    BOOST_TEST(check_session(second, "a") == 2);  // never bound
    BOOST_TEST(auth(first).replayed);             // the first session's repeat still replays
}

// A call whose authentication fails records no key and learns nothing: a wrong hash, or an
// application that does not exist, leaves the key to its owner.
BOOST_AUTO_TEST_CASE(a_failed_authentication_records_no_key_and_blocks_nothing) {
    const auto session = unique("sess");
    const auto auth = [&](const std::string& secret) { return authenticate_keyed(session, secret, key); };
    const auto wrong = auth("not-the-secret");
    BOOST_TEST(wrong.result == 4);
    BOOST_TEST(!wrong.replayed);
    BOOST_TEST(keys_of(key) == 0);
    const auto right = auth("secret");
    BOOST_TEST(right.status == 200);
    BOOST_TEST(right.result == 0);
    BOOST_TEST(!right.replayed);
    const auto wrong_again = auth("not-the-secret");  // the owner's recorded answer is not the stranger's
    BOOST_TEST(wrong_again.result == 4);
    BOOST_TEST(!wrong_again.replayed);
    const auto app = unique("App");
    const auto subscribe = call_keyed("PushApi", "SubscribeAppWithTagAndLocale",
                                      {{"appId", app},
                                       {"userId", "u1"},
                                       {"pushServiceUserId", unique("dev")},
                                       {"tag", "1"},
                                       {"locale", "1033"},
                                       {"authHash", keeper::core::expected_auth_hash(app, "s", "u1")}},
                                      key);
    BOOST_TEST(subscribe.result == 4);  // no such application
    BOOST_TEST(count("SELECT count(*) FROM idempotency_keys WHERE key = '" + key + "' AND app_id IS NOT NULL") == 0);
}

// A keyed call that waits for a lock past lock_timeout (its first call, or another holding the
// row, still running) changed nothing and is told to repeat it: 409 with Retry-After, never a
// server fault. Repeated, it runs once.
BOOST_AUTO_TEST_CASE(a_keyed_call_that_waits_past_lock_timeout_gets_409_and_changes_nothing) {
    keeper::db::pg_store short_wait{
        keeper::test::shared_database().url(), 1, {std::chrono::milliseconds{300}, std::chrono::milliseconds{5000}}};
    pqxx::connection other{keeper::test::shared_database().url()};
    pqxx::work holder{other};
    holder.exec("SELECT 1 FROM purses WHERE purse = '" + purse + "' FOR UPDATE");  // the top-up's UPDATE waits
    const auto busy = topup(alice, purse, card, "3", key, &short_wait);
    BOOST_TEST(busy.status == 409);
    BOOST_TEST(busy.retry_after == "1");
    BOOST_TEST(keys_of(key) == 0);
    holder.commit();
    const auto again = topup(alice, purse, card, "3", key, &short_wait);
    BOOST_TEST(again.status == 200);
    BOOST_TEST(again.result == 0);
    BOOST_TEST(!again.replayed);
    BOOST_TEST(topup(alice, purse, card, "3", key, &short_wait).replayed);
    BOOST_TEST(balance(purse) == "3.00");
}

BOOST_AUTO_TEST_CASE(concurrent_repeats_apply_once_and_all_answer_the_same) {
    keeper::db::pg_store pool{keeper::test::shared_database().url(), 6};
    // Hold the card's lock, so that every repeat is in flight at once before the first commits.
    pqxx::connection holder{keeper::test::shared_database().url()};
    pqxx::work hold{holder};
    hold.exec_params("SELECT pg_advisory_xact_lock(2, hashint8($1::bigint))", card);
    std::vector<std::future<keyed_answer>> calls;
    for (int i = 0; i < 6; ++i)
        calls.push_back(std::async(std::launch::async, [&] { return topup(alice, purse, card, "2", key, &pool); }));
    for (int waited = 0;
         waited < 500 &&
         count("SELECT count(*) FROM pg_locks l JOIN pg_database d ON d.oid = l.database "
               "WHERE d.datname = current_database() AND l.locktype = 'advisory' AND NOT l.granted") < 6;
         ++waited) {
        std::this_thread::sleep_for(std::chrono::milliseconds{10});
    }
    hold.commit();
    int replays = 0;
    for (auto& c : calls) {
        const auto a = c.get();
        BOOST_TEST(a.result == 0);
        replays += a.replayed ? 1 : 0;
    }
    BOOST_TEST(replays == 5);
    BOOST_TEST(balance(purse) == "2.00");
    BOOST_TEST(keys_of(key) == 1);
}

BOOST_AUTO_TEST_SUITE_END()
