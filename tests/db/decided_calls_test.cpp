// "none" from /call-outcome is a fact the database makes (docs/design.md, "A call decided as not
// applied"): once a look answers it, no attempt of the call commits, whatever the attempting
// host's budget or clock; while an attempt is between its first statement and its commit, the
// look says "pending". Looks go through core's pipeline on the PostgreSQL store, as a worker's do;
// attempts are the operations' own statements, held where a test needs them held.
#include <chrono>
#include <future>
#include <sstream>
#include <string>
#include <thread>

#include "core/api/request_id.hpp"
#include "db/schema/roles.hpp"
#include "db/store/statements.hpp"
#include "tests/db/db_fixture.hpp"

namespace {

using namespace std::chrono_literals;

// keeper's request id for a call nginx first saw `ago` before now.
std::string request_id_of(std::chrono::milliseconds ago, const std::string& tail) {
    const auto ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()) -
        ago;
    return std::to_string(ms.count()) + tail;
}

std::int64_t micros_from_now(std::chrono::system_clock::duration d) {
    return std::chrono::duration_cast<std::chrono::microseconds>(
               (std::chrono::system_clock::now() + d).time_since_epoch())
        .count();
}

struct decided_fixture : keeper::test::db_fixture {
    user u = new_user();

    // The answer to GET /call-outcome for request_id, from a host whose settings are cfg's.
    std::string look(const std::string& request_id) {
        auto r = keeper::test::request("GET", "/call-outcome", "sessionId=" + u.session + "&requestId=" + request_id);
        r.request_id = unique("look");  // the look's own, not the call's
        return keeper::core::handle_request(r, store, cfg).response.body;
    }

    // The worker's SetAccountPermits statement for request_id on tx, with a deadline `budget` from
    // now and the frame's host_recorded (true: a first attempt its host vouches for).
    pqxx::result permits(pqxx::transaction_base& tx, const std::string& request_id, std::chrono::milliseconds budget,
                         bool host_recorded = true) {
        const auto hash = std::string{"\\x"} +
                          tx.exec_params("SELECT encode(keeper_session_hash($1), 'hex')", u.session)[0][0].c_str();
        return tx.exec_params(std::string{keeper::db::statements::set_account_permits.sql()}, request_id,
                              "SetAccountPermits", "", "", false, request_id, micros_from_now(budget), host_recorded,
                              hash, 86400, false, true, false);
    }

    long long audit_rows(const std::string& request_id) {
        return count("SELECT count(*) FROM audit_log WHERE request_id = '" + request_id + "'");
    }
};

bool says(const std::string& body, const std::string& outcome) {
    return body.find(R"("outcome":")" + outcome + "\"") != std::string::npos;
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(decided_calls, decided_fixture)

// Two worker hosts, budgets 20 s and 10 s: a call taken by the first waits (for a connection, or
// its worker stopped) before it sends its statement; the client's look, answered by the second
// after its own final time (10 s budget + 5 s statement_timeout + 1 s after the id's time), says
// "none"; the held attempt, still inside its own 20 s, then reaches the database and is refused.
BOOST_AUTO_TEST_CASE(an_attempt_after_a_none_changes_nothing_whatever_its_hosts_budget) {
    cfg.call_budget = 10s;
    for (const bool vouched : {true, false}) {
        BOOST_TEST_CONTEXT("host_recorded " << vouched) {
            const auto id = request_id_of(16500ms, vouched ? "0123456789abcdefd01" : "0123456789abcdefd02");
            const auto none = look(id);
            BOOST_TEST(says(none, "none"), none);
            try {
                pqxx::work tx{sql()};
                permits(tx, id, 3500ms, vouched);  // the long-budget host: its deadline still ahead
                tx.commit();
                BOOST_FAIL("an attempt of a call decided as not applied committed");
            } catch (const pqxx::sql_error& e) {
                BOOST_TEST(e.sqlstate() == "KD002");
            }
            BOOST_TEST(audit_rows(id) == 0);
            const auto again = look(id);
            BOOST_TEST(says(again, "none"), again);
        }
    }
    // Through the store, as the long-budget host's worker runs it: "not applied", also when nginx
    // sent it again (a retry of a decided call has nothing left that could commit).
    const auto id = request_id_of(16500ms, "0123456789abcdefd03");
    BOOST_TEST(says(look(id), "none"));
    for (const bool retried : {false, true}) {
        auto f = frame(id, "SetAccountPermits", retried);
        f.until = keeper::core::deadline::after(3500ms);
        BOOST_CHECK_THROW(store.set_account_permits(f, session(u.session), true, true, true),
                          keeper::core::not_applied);
    }
    BOOST_TEST(audit_rows(id) == 0);
}

// A first attempt its host vouches for holds no claim; between its statement and its commit (a
// commit not yet waiting for the standby: its WAL flush stalled, or the backend held) it holds the
// call's lock shared, and the look says "pending", never "none", however late; once it commits,
// "recorded".
BOOST_AUTO_TEST_CASE(a_commit_not_yet_waiting_for_the_standby_is_pending_never_none) {
    const auto id = request_id_of(1min, "0123456789abcdefd11");
    pqxx::connection attempt{keeper::test::shared_database().url()};
    pqxx::work tx{attempt};
    BOOST_TEST(std::string{permits(tx, id, 10s)[0][0].c_str()} == "0");
    const auto held = look(id);
    BOOST_TEST(says(held, "pending"), held);
    BOOST_TEST(held.find(R"("retryAfter":1)") != std::string::npos, held);
    tx.commit();
    const auto committed = look(id);
    BOOST_TEST(committed.find(R"("outcome":"recorded","result":0)") != std::string::npos, committed);
}

// The common attempt, begun within a second of its call's time, takes no lock; while its
// transaction is open (its statement, its commit's flush, its wait for the standby) the look sees it
// in pg_stat_activity and says "pending", however late; once it commits, "recorded".
BOOST_AUTO_TEST_CASE(an_attempt_begun_at_once_takes_no_lock_and_keeps_the_look_pending_while_open) {
    const auto id = request_id_of(0ms, "0123456789abcdefd41");
    const auto sent = *keeper::core::request_id_time(id);
    pqxx::connection attempt{keeper::test::shared_database().url()};
    pqxx::work tx{attempt};
    BOOST_TEST(std::string{permits(tx, id, 10s)[0][0].c_str()} == "0");
    BOOST_TEST(count("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = " +
                     std::to_string(attempt.backendpid())) == 0);
    std::this_thread::sleep_for(2100ms);  // past the 2 s before which nothing is decided
    const auto until = keeper::core::deadline::after(3s);
    const auto final = sent + 1s;  // passed
    const auto held = store.find_call(session(u.session), id, sent, final, until);
    BOOST_TEST(!held.result.has_value());
    BOOST_TEST(held.undecided.count() >= 1000);  // "pending", never "none"
    tx.commit();
    const auto committed = store.find_call(session(u.session), id, sent, final, until);
    BOOST_TEST_REQUIRE(committed.result.has_value());
    BOOST_TEST(static_cast<int>(*committed.result) == 0);
    BOOST_TEST(count("SELECT count(*) FROM decided_calls WHERE request_id = '" + id + "'") == 0);
}

// An attempt that is not its host's first (here the previous release's frame: no deadline, no
// host_recorded) holds the call's claim, exclusively, until its transaction ends: the look says
// "pending" while it is held, however old the call, "recorded" once it commits, and "none" for a
// call no attempt ever reached.
BOOST_AUTO_TEST_CASE(a_call_whose_claim_is_held_is_pending_whatever_the_clock_says) {
    const auto id = request_id_of(1min, "0123456789abcdefc1a");
    pqxx::connection attempt{keeper::test::shared_database().url()};
    pqxx::work tx{attempt};
    tx.exec("SELECT keeper_set_account_permits(ROW(" + tx.quote(id) +
            ", 'SetAccountPermits', '', '', false, '', NULL, NULL)::keeper_call, keeper_session_hash(" +
            tx.quote(u.session) + "), 86400, true, false, true)");
    const auto while_held = look(id);
    BOOST_TEST(says(while_held, "pending"), while_held);
    tx.commit();
    const auto committed = look(id);
    BOOST_TEST(committed.find(R"("outcome":"recorded","result":0)") != std::string::npos, committed);
    const auto never = look(request_id_of(1min, "0123456789abcdefc1b"));
    BOOST_TEST(says(never, "none"), never);
}

// Before its final time a look decides nothing: "pending" for a call not seen yet, which then
// commits and is "recorded".
BOOST_AUTO_TEST_CASE(a_look_before_the_final_time_decides_nothing) {
    const auto id = request_id_of(0ms, "0123456789abcdefd21");
    const auto early = look(id);
    BOOST_TEST(says(early, "pending"), early);
    {
        pqxx::work tx{sql()};
        permits(tx, id, 10s);
        tx.commit();
    }
    BOOST_TEST(says(look(id), "recorded"));
    BOOST_TEST(count("SELECT count(*) FROM decided_calls WHERE request_id = '" + id + "'") == 0);
}

// Whatever final time a worker passes, the database decides no call nginx first saw less than 2 s
// ago: an attempt younger than a second does not look for a decision (keeper_claim).
BOOST_AUTO_TEST_CASE(no_call_younger_than_two_seconds_is_decided) {
    for (const auto age : {0ms, 1500ms}) {
        const auto id = request_id_of(age, "0123456789abcdefd2" + std::to_string(age.count() % 7));
        pqxx::nontransaction tx{sql()};
        const auto r = tx.exec_params(
            "SELECT outcome, wait_ms FROM keeper_decide_call(keeper_session_hash($1), 86400, $2, "
            "now(), now() - interval '1 minute', true)",
            u.session, id);
        BOOST_TEST(std::string{r[0][0].c_str()} == "pending", age.count());
        BOOST_TEST(r[0][1].as<int>() == 1000);
    }
}

// A look and an attempt at the same moment: the attempt that finds the look holding the call's lock
// waits for it (keeper_claim) and then sees its decision.
BOOST_AUTO_TEST_CASE(an_attempt_that_meets_a_deciding_look_waits_and_is_refused) {
    const auto id = request_id_of(1min, "0123456789abcdefd31");
    pqxx::connection looker{keeper::test::shared_database().url()};
    pqxx::work decision{looker};
    const auto decided = decision.exec_params(
        "SELECT outcome FROM keeper_decide_call(keeper_session_hash($1), 86400, $2, now() - interval '1 minute', "
        "now(), "
        "true)",
        u.session, id);
    BOOST_TEST(std::string{decided[0][0].c_str()} == "none");
    auto run = std::async(std::launch::async, [&] {
        pqxx::connection c{keeper::test::shared_database().url()};
        pqxx::work tx{c};
        try {
            permits(tx, id, 10s);
            tx.commit();
            return std::string{"committed"};
        } catch (const pqxx::sql_error& e) {
            return std::string{e.sqlstate()};
        }
    });
    const auto waiting = [&] {
        return count(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND mode = 'ShareLock'");
    };
    for (int i = 0; i < 500 && waiting() == 0; ++i) std::this_thread::sleep_for(10ms);
    BOOST_TEST(waiting() == 1);  // the attempt waits for the look's lock
    decision.commit();
    BOOST_TEST(run.get() == "KD002");
    BOOST_TEST(audit_rows(id) == 0);
}

// Only the worker role may look, and it may read the list but not write it: a decision is the
// look's alone (keeperctl roles).
BOOST_AUTO_TEST_CASE(only_the_look_writes_the_list) {
    keeper::test::fresh_database db{"decided"};
    std::ostringstream out;
    keeper::db::apply_roles(db.sql(), out);
    pqxx::nontransaction tx{db.sql()};
    const auto yes = [&](const std::string& query) { return tx.exec(query)[0][0].as<bool>(); };
    const std::string look = "'keeper_decide_call(bytea, integer, text, timestamptz, timestamptz, boolean)', 'EXECUTE'";
    BOOST_TEST(!yes("SELECT has_function_privilege('public', " + look + ")"));
    BOOST_TEST(yes("SELECT has_function_privilege('keeper_worker', " + look + ")"));
    BOOST_TEST(yes("SELECT has_table_privilege('keeper_worker', 'decided_calls', 'SELECT')"));
    BOOST_TEST(!yes("SELECT has_table_privilege('keeper_worker', 'decided_calls', 'INSERT')"));
    BOOST_TEST(yes("SELECT has_table_privilege('keeper_maintain', 'decided_calls', 'DELETE')"));
}

BOOST_AUTO_TEST_SUITE_END()
