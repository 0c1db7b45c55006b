// The previous release's workers on this release's schema: an upgrade migrates while they serve
// and restarts them only afterwards (docs/operations.md, "Restart, reload, upgrade"), so every
// statement they prepared must still answer, with this release's effects. Its statements are its
// own db/store/statements.hpp (tests/db/fixtures/statements-0.2.0.hpp, checked against the
// release's commit by unit.releases): each must prepare here. The calls below run its texts as
// its worker ran them; db/functions/keeper_previous_release.sql answers them.
#include <boost/test/unit_test.hpp>

#include <cstddef>
#include <span>

// Its handles, under a namespace of their own (their names are this release's too); the standard
// headers it includes are already included above.
namespace previous {
#include "tests/db/fixtures/statements-0.2.0.hpp"
}  // namespace previous

#include "core/domain/code_hash.hpp"
#include "keeperctl/provisioning.hpp"
#include "db_fixture.hpp"

using keeper::test::db_fixture;
namespace p = keeper::db;

namespace {

struct previous_release_fixture : db_fixture {
    user alice = new_user();
    pqxx::connection worker{keeper::test::shared_database().url()};

    // Runs one of the previous release's statements; returns its first column.
    template <typename... Args>
    std::string run(const std::string& sql, const Args&... args) {
        pqxx::nontransaction tx{worker};
        const auto r = tx.exec_params1(sql, args...);
        return r[0].is_null() ? "NULL" : r[0].c_str();
    }
    std::string rid() { return unique("prev-"); }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(previous_release, previous_release_fixture)

BOOST_AUTO_TEST_CASE(every_statement_its_workers_prepare_prepares_on_this_schema) {
    std::size_t prepared = 0;
    for (const auto& s : previous::keeper::db::worker_statements) {
        BOOST_TEST_CONTEXT(s.name) {
            pqxx::work tx{worker};
            BOOST_CHECK_NO_THROW(tx.exec("PREPARE previous_" + std::string{s.name} + " AS " + std::string{s.sql}));
            ++prepared;
        }
    }
    BOOST_TEST(prepared == previous::keeper::db::worker_statements.size());
    BOOST_TEST(prepared > 20u);
}

BOOST_AUTO_TEST_CASE(its_session_and_permit_statements_answer_with_this_releases_effects) {
    const auto session = unique("sess");
    BOOST_TEST(run("SELECT keeper_authenticate($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) AS result", rid(),
                   "Authenticate", alice.login, session, true, 900, 5, "", "", false) == "0");
    BOOST_TEST(count("SELECT count(*) FROM sessions WHERE session_hash = keeper_session_hash('" + session + "')") == 1);
    const auto app = unique("app");
    add_app(app, "s1", "iOS", true);
    BOOST_TEST(run("SELECT keeper_check_session($1, $2, $3, $4, $5) AS result", rid(), "CheckSessionEx", session, 86400,
                   app) == "0");
    const auto permits = rid();
    BOOST_TEST(run("SELECT keeper_set_account_permits($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) AS result", permits,
                   "SetAccountPermits", session, 86400, true, false, true, "", "", false) == "0");
    BOOST_TEST(
        scalar("SELECT accept_invoices FROM account_permits a JOIN logins l ON l.id = a.login_id WHERE l.login = '" +
               alice.login + "'") == "f");
    // Its audit row names the login by id, as this release's do.
    BOOST_TEST(scalar("SELECT login FROM audit_calls WHERE request_id = '" + permits + "'") == alice.login);
    BOOST_TEST(count("SELECT count(*) FROM audit_log WHERE request_id = '" + permits + "' AND login_id IS NOT NULL") ==
               1);
    BOOST_TEST(run("SELECT keeper_set_contact_permits($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) AS result",
                   rid(), "SetContactPermits", session, 86400, "123456789012", true, true, true, false, "", "",
                   false) == "0");
    BOOST_TEST(run("SELECT keeper_audit($1, $2, NULLIF($3, ''), NULLIF($4, ''), $5, $6, $7, $8) AS result", rid(),
                   "Authenticate", alice.login, "", 4, "", "", false) == "4");
}

BOOST_AUTO_TEST_CASE(its_code_confirmation_reads_the_login_name_and_completes_the_transfer) {
    const long long tran = next_id();
    p::add_transfer(sql(), alice.login, tran, "10.00", "4321", {3600});
    pqxx::nontransaction tx{worker};
    const auto found = tx.exec_params1(
        "SELECT result, login_id, login, code_hash "
        "FROM keeper_code_hash($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
        rid(), "FinishCodeProtectedOperation", alice.session, 86400, "transfer", tran, 0, "", "", false);
    BOOST_TEST(found[0].as<int>() == 0);
    BOOST_TEST(found[2].as<std::string>() == alice.login);
    BOOST_TEST(keeper::core::code_matches(found[3].as<std::string>(), "4321"));
    const auto done = tx.exec_params1(
        "SELECT keeper_confirm_transfer($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) AS result", rid(),
        "FinishCodeProtectedOperation", found[1].as<long long>(), alice.login, tran, true, 5, "", "", false);
    BOOST_TEST(done[0].as<int>() == 0);
    BOOST_TEST(scalar("SELECT status FROM protected_transfers WHERE id = " + std::to_string(tran)) == "completed");
}

BOOST_AUTO_TEST_CASE(its_topup_and_other_writes_answer_and_a_keyed_repeat_replays) {
    const auto purse = purse_for(alice);
    const long long card = card_for(alice);
    const auto key = unique("key-");
    const std::string topup =
        "SELECT keeper_topup($1, $2, $3, $4, $5, $6, $7::numeric, $8::numeric, $9::numeric, $10, $11, $12) AS result";
    BOOST_TEST(run(topup, rid(), "TopupPurseFromAtmCard", alice.session, 86400, purse, card, "12.50", "15000", "50000",
                   key, std::string(64, 'a'), false) == "0");
    BOOST_TEST(balance(purse) == "12.50");
    // The repeat with the key, as that release's worker sends it once the key met the unique index.
    BOOST_CHECK_EXCEPTION(run(topup, rid(), "TopupPurseFromAtmCard", alice.session, 86400, purse, card, "12.50",
                              "15000", "50000", key, std::string(64, 'a'), true),
                          pqxx::sql_error, [](const pqxx::sql_error& e) { return e.sqlstate() == "KI200"; });
    BOOST_TEST(balance(purse) == "12.50");

    const int profile = next_id(), task = next_id(), sms = next_id();
    p::add_profile(sql(), alice.login, profile, "Old");
    p::add_task(sql(), profile, task, "1111", {3600});
    p::add_sms(sql(), alice.login, sms);
    BOOST_TEST(run("SELECT keeper_rename_profile($1, $2, $3, $4, $5, $6, $7, $8, $9) AS result", rid(),
                   "RenameTelepayProfile", alice.session, 86400, profile, "New", "", "", false) == "0");
    BOOST_TEST(run("SELECT keeper_confirm_task($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) AS result", rid(),
                   "TelepaySchedulerConfirmCreate",
                   std::stoll(scalar("SELECT id FROM logins WHERE login = '" + alice.login + "'")), alice.login,
                   profile, task, false, 5, "", "", false) == "6");
    BOOST_TEST(run("SELECT keeper_subscribe_device($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) AS result", rid(),
                   "SubscribeDevice", alice.session, 86400, "Android", unique("dev"), 1, 1033, "", "", false) == "0");
    BOOST_TEST(run("SELECT keeper_mark_sms_delivered($1, $2, $3, $4, $5, $6, $7, $8) AS result", rid(),
                   "MarkSmsAsDelivered", alice.session, 86400, sms, "", "", false) == "0");
    const auto app = unique("App");
    add_app(app, "s1", "iOS", true);
    BOOST_TEST(run("SELECT keeper_subscribe_app_device($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) AS result", rid(),
                   "SubscribeAppWithTagAndLocale", app, "u1", "iOS", unique("dev"), 1, 1033, "", "", false) == "0");
}

BOOST_AUTO_TEST_SUITE_END()
