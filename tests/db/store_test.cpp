// The PostgreSQL store survives losing its connection: one the server closed while idle is
// replaced before a call sends anything on it; a call whose connection broke after its statement
// was sent is settled by the store itself (docs/design.md, "In-doubt calls"): run again when it did
// not happen, answered with its recorded result when it did, a fault only past the call's budget.
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <future>
#include <optional>
#include <regex>
#include <thread>

#include "core/api/date_time.hpp"
#include "core/domain/call_frame.hpp"
#include "db/store/backend_ending.hpp"
#include "db/store/statements.hpp"
#include "db_fixture.hpp"
#include "stalling_proxy.hpp"

using keeper::test::db_fixture;
using keeper::test::soon;

BOOST_FIXTURE_TEST_SUITE(pg_store_connection, db_fixture)

// Every statement of the worker, as the database sees it: it prepares (the functions it calls
// exist with these arguments) and returns exactly the columns its handle names, in order. LIMIT 0
// around it: nothing is called, nothing changes.
BOOST_AUTO_TEST_CASE(every_statement_returns_the_columns_its_handle_names) {
    static const std::regex placeholder{R"(\$[0-9]+)"};
    for (const auto& s : keeper::db::worker_statements) {
        BOOST_TEST_CONTEXT(s.name) {
            pqxx::work tx{sql()};
            const auto r = tx.exec("SELECT * FROM (" + std::regex_replace(std::string{s.sql}, placeholder, "NULL") +
                                   ") AS s LIMIT 0");
            BOOST_TEST_REQUIRE(r.columns() == s.columns.size());
            for (pqxx::row::size_type i = 0; i < r.columns(); ++i)
                BOOST_TEST(std::string_view{r.column_name(i)} == s.columns[i]);
        }
    }
}

// The call frame is written once, in statements.hpp (call_frame_fields), and restated by the SQL type
// every write function takes first (keeper_call, db/migrations/0015_call_frame.sql): its fields
// are the frame's, in the frame's order.
BOOST_AUTO_TEST_CASE(the_keeper_call_type_has_the_frames_fields_in_order) {
    pqxx::work tx{sql()};
    const auto r = tx.exec(
        "SELECT attname FROM pg_attribute WHERE attrelid = 'keeper_call'::regclass "
        "AND attnum > 0 AND NOT attisdropped ORDER BY attnum");
    BOOST_TEST_REQUIRE(r.size() == keeper::db::call_frame_fields.size());
    for (std::size_t i = 0; i < r.size(); ++i) {
        BOOST_TEST(r[static_cast<int>(i)][0].as<std::string>() == std::string{keeper::db::call_frame_fields[i]});
    }
}

// The server ended the idle connection (a restart, pg_terminate_backend): the next call finds the
// socket readable before sending anything, opens a new connection and succeeds.
BOOST_AUTO_TEST_CASE(a_connection_the_server_closed_while_idle_is_replaced_before_a_call_uses_it) {
    // The store names its connections for this process (backend_ending.hpp).
    const auto named = "application_name = '" + keeper::db::worker_application_name() + "'";
    const auto session = unique("s");
    BOOST_TEST(check_session(session, "a") == 2);  // connected
    {
        pqxx::work tx{sql()};
        tx.exec("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE " + named);
        tx.commit();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds{200});  // the termination reaches the socket
    BOOST_TEST(check_session(session, "a") == 2);
    BOOST_TEST(count("SELECT count(*) FROM pg_stat_activity WHERE " + named) == 1);
    BOOST_TEST(store.healthy());
}

// A database that is not there: every call waits at most its budget for it (the request's
// deadline comes from call_budget_ms; the store's own budget sizes its cancel point).
const keeper::db::database_timeouts short_budget{std::chrono::milliseconds{2000}, std::chrono::milliseconds{5000},
                                                 std::chrono::milliseconds{300}, 4};

BOOST_AUTO_TEST_CASE(health_is_200_with_the_database_and_503_without) {
    auto r = keeper::test::request("GET", "/health");
    BOOST_TEST(keeper::core::handle_request(r, store, cfg).response.status == 200);
    keeper::db::pg_store nowhere{"host=/nonexistent dbname=keeper connect_timeout=1", 1, short_budget};
    BOOST_TEST(keeper::core::handle_request(r, nowhere, cfg).response.status == 503);
}

// CheckSessionEx over GET through `through`, with short_budget's call budget: the answer, and how
// long it took.
std::pair<keeper::core::handled_request, std::chrono::steady_clock::duration> short_call_through(
    keeper::db::pg_store& through, keeper::core::settings cfg) {
    const auto r = keeper::test::request("GET", "/AccountApi.asmx/CheckSessionEx", "sessionId=a&appId=b");
    cfg.call_budget = short_budget.budget;
    const auto started = std::chrono::steady_clock::now();
    auto out = keeper::core::handle_request(r, through, cfg);
    return {std::move(out), std::chrono::steady_clock::now() - started};
}

BOOST_AUTO_TEST_CASE(an_unreachable_database_is_not_applied_once_the_budget_is_spent) {
    keeper::db::pg_store nowhere{"host=/nonexistent dbname=keeper connect_timeout=1", 1, short_budget};
    const auto [out, waited] = short_call_through(nowhere, cfg);
    BOOST_TEST(out.response.status == 503);
    BOOST_TEST(out.response.body.find("not applied") != std::string::npos);
    BOOST_TEST(out.log.outcome == "fault=not_applied");
    BOOST_TEST((waited >= std::chrono::milliseconds{100} &&
                waited < std::chrono::seconds{3}));  // it tried again, within the budget
    BOOST_TEST(out.log.detail == "cannot connect to the database");
    BOOST_TEST(!nowhere.healthy());
}

// A statement still running at its cancel point is cancelled, and its connection is closed rather
// than given back to the pool: a cancel request still on its way could otherwise reach the next
// call's statement (db/store/statement_lease.hpp). The next call opens a new connection.
BOOST_AUTO_TEST_CASE(a_connection_whose_statement_was_interrupted_never_serves_another_call) {
    keeper::db::database_gauges gauges;
    const keeper::db::database_timeouts bounds{std::chrono::milliseconds{5000}, std::chrono::milliseconds{5000},
                                               std::chrono::milliseconds{1000}, 4};
    keeper::db::pg_store one{keeper::test::shared_database().url(), 1, bounds, nullptr, &gauges};
    const auto login = unique("held");
    add_login(login, "secret");
    BOOST_TEST(one.find_login_secret(login, keeper::core::deadline::after(bounds.budget)).has_value());
    BOOST_TEST(gauges.connections_open.load() == 1);
    {
        pqxx::work holder{sql()};
        holder.exec("LOCK TABLE logins IN ACCESS EXCLUSIVE MODE");
        BOOST_CHECK_THROW(one.find_login_secret(login, keeper::core::deadline::after(bounds.budget)),
                          keeper::core::not_applied);
        BOOST_TEST(gauges.statement_timeouts.load() == 1u);
        BOOST_TEST(gauges.connections_open.load() == 0);  // closed, not pooled
        BOOST_TEST(gauges.connections_lost.load() == 1u);
    }
    BOOST_TEST(one.find_login_secret(login, keeper::core::deadline::after(bounds.budget)).has_value());
    BOOST_TEST(gauges.connections_open.load() == 1);
}

// A server that accepted the connection and then hung: opening a connection ends at the call's
// deadline, not at libpq's connect_timeout (whole seconds, per host). Nothing was sent, so the
// call is "not applied" (db/store/connection_opening.hpp).
BOOST_AUTO_TEST_CASE(opening_a_connection_ends_at_the_calls_deadline) {
    const keeper::test::stalling_proxy hung{keeper::test::shared_database().url(),
                                            keeper::test::stalling_proxy::holds::every_connection};
    keeper::db::pg_store behind{hung.url() + " connect_timeout=60", 1, short_budget};
    const auto [out, waited] = short_call_through(behind, cfg);
    BOOST_TEST(out.response.status == 503);
    BOOST_TEST(out.log.outcome == "fault=not_applied");
    BOOST_TEST(hung.held() >= 1);                  // it did reach the hung server
    BOOST_TEST(waited < std::chrono::seconds{5});  // not the 60 s of connect_timeout
}

// PostgreSQL's cancel port blackholed: a cancel request hangs until its connection is closed.
// Each goes out on a thread of its own (statement_watch.hpp), so another statement is still cut
// at its deadline; were they sent one after another, the second call would wait for its lock
// timeout instead.
BOOST_AUTO_TEST_CASE(a_cancel_that_hangs_delays_no_other_calls_cut) {
    const keeper::db::database_timeouts bounds{std::chrono::milliseconds{8000}, std::chrono::milliseconds{8000},
                                               std::chrono::milliseconds{1000}, 4};
    std::optional<keeper::db::pg_store> store_behind;  // outlives the proxy, which lets go of what it holds first
    const keeper::test::stalling_proxy blackholed{keeper::test::shared_database().url(),
                                                  keeper::test::stalling_proxy::holds::cancel_requests};
    auto& two = store_behind.emplace(blackholed.url(), 2, bounds);
    const auto login = unique("cut");
    add_login(login, "secret");
    BOOST_TEST(two.find_login_secret(login, keeper::core::deadline::after(bounds.budget)).has_value());
    pqxx::work holder{sql()};
    holder.exec("LOCK TABLE logins IN ACCESS EXCLUSIVE MODE");
    auto first = std::async(std::launch::async, [&] {  // says whether it failed as it should
        try {
            two.find_login_secret(login, keeper::core::deadline::after(bounds.budget));
        } catch (const keeper::core::store_error&) {
            return true;
        }
        return false;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds{300});  // the first call's cancel goes out first
    const auto started = std::chrono::steady_clock::now();
    BOOST_CHECK_THROW(two.find_login_secret(login, keeper::core::deadline::after(bounds.budget)),
                      keeper::core::store_error);
    const auto waited = std::chrono::steady_clock::now() - started;
    BOOST_TEST(first.get());
    BOOST_TEST(blackholed.held() >= 2);  // both cancels hung
    BOOST_TEST(waited <
               bounds.budget + std::chrono::milliseconds{1500});  // cut at its deadline, not at the lock timeout
}

// After a switchover the host a connection knew as primary may answer as a standby: "cannot
// execute … in a read-only transaction" (25006). Nothing was done, so the call runs again on a new
// connection, within its budget, and succeeds where the primary is. Here the old connection is
// read-only (opened while the database said so) and a new one is not.
BOOST_AUTO_TEST_CASE(a_call_a_standby_refused_runs_again_on_a_new_connection) {
    const auto database = scalar("SELECT current_database()");
    const auto session = unique("s");
    keeper::db::pg_store one_connection{keeper::test::shared_database().url(), 1, short_budget};
    exec("ALTER DATABASE \"" + database + "\" SET default_transaction_read_only = on");
    const auto check = [&] {
        return one_connection.check_session(frame(unique("rid"), "CheckSessionEx"), this->session(session), "a");
    };
    // A read opens the store's one connection, read-only like a standby's; a write is refused
    // there and on the retry's connection alike: a server fault, nothing written.
    BOOST_TEST(!one_connection.find_login_secret(unique("nobody"), soon()));
    BOOST_CHECK_THROW(check(), keeper::core::store_error);
    BOOST_TEST(!one_connection.find_login_secret(unique("nobody"), soon()));  // read-only again
    exec("ALTER DATABASE \"" + database + "\" RESET default_transaction_read_only");
    // Now "the primary has moved": the open connection still refuses, the retry's new one writes.
    BOOST_TEST(static_cast<int>(check().code) == 2);  // session_not_found
    BOOST_TEST(count("SELECT count(*) FROM audit_log WHERE operation = 'CheckSessionEx' AND request_id LIKE 'rid%'") >=
               1);
}

// A top-up on its way: its server process waits for the card's lock, which the test holds. The
// test either records the call's audit row itself, as if the call had committed, or not; then ends
// that process (as a crash, a restart or a failover would) and lets go of the lock.
struct in_doubt_topup {
    db_fixture& f;
    keeper::db::database_gauges gauges;
    keeper::db::pg_store one_connection{keeper::test::shared_database().url(), 1, {}, nullptr, &gauges};
    std::string request_id = db_fixture::unique("rid");
    std::string purse =
        "Z" + std::to_string(100000000000 + std::chrono::steady_clock::now().time_since_epoch().count() % 899999999999);
    long long card = 0;
    std::string session;

    explicit in_doubt_topup(db_fixture& fixture) : f(fixture) {
        const auto u = f.new_user();
        session = u.session;
        card = 700000 + f.count("SELECT count(*) FROM cards") +
               std::chrono::steady_clock::now().time_since_epoch().count() % 100000;
        f.exec("INSERT INTO purses (purse, login_id) SELECT '" + purse + "', id FROM logins WHERE login = '" + u.login +
               "'");
        f.exec("INSERT INTO cards (id, login_id) SELECT " + std::to_string(card) + ", id FROM logins WHERE login = '" +
               u.login + "'");
    }

    // Runs the top-up while the card is locked; `meanwhile` runs before its server process is ended.
    keeper::core::store_result run(const std::function<void()>& meanwhile) {
        pqxx::connection holder{keeper::test::shared_database().url()};
        pqxx::work lock{holder};
        lock.exec("SELECT pg_advisory_xact_lock(2, hashint8(" + std::to_string(card) + "))");
        auto call = std::async(std::launch::async, [&] {
            return one_connection.topup(f.frame(request_id, "TopupPurseFromAtmCard"), f.session(session),
                                        {purse, card, "10.50", "15000", "50000"});
        });
        std::string pid;
        for (int i = 0; i < 500 && pid.empty(); ++i) {
            pid = f.scalar(
                "SELECT coalesce(min(pid)::text, '') FROM pg_locks WHERE locktype = 'advisory' AND NOT granted "
                "AND classid = 2");
            if (pid.empty()) std::this_thread::sleep_for(std::chrono::milliseconds{10});
        }
        BOOST_TEST_REQUIRE(!pid.empty());
        meanwhile();
        f.exec("SELECT pg_terminate_backend(" + pid + ", 5000)");
        lock.commit();
        return call.get();
    }

    long long topups() { return f.count("SELECT count(*) FROM topups WHERE request_id = '" + request_id + "'"); }
    long long audit_rows() { return f.count("SELECT count(*) FROM audit_log WHERE request_id = '" + request_id + "'"); }
};

BOOST_AUTO_TEST_CASE(a_call_whose_server_process_ended_before_it_committed_runs_again_once) {
    in_doubt_topup t{*this};
    const auto result = t.run([] {});
    BOOST_TEST(static_cast<int>(result.code) == 0);
    BOOST_TEST(t.topups() == 1);  // applied once: the first run never committed
    BOOST_TEST(t.audit_rows() == 1);
    BOOST_TEST(t.gauges.in_doubt_rerun.load() == 1u);
    BOOST_TEST(t.gauges.in_doubt_recorded.load() == 0u);
    BOOST_TEST(scalar("SELECT balance::text FROM purses WHERE purse = '" + t.purse + "'") == "10.50");
}

BOOST_AUTO_TEST_CASE(a_call_that_committed_before_its_answer_was_lost_answers_its_recorded_result) {
    in_doubt_topup t{*this};
    // As if the first run had committed with result 9: the store must answer that, not run again.
    const auto result = t.run([&] {
        exec("SELECT keeper_audit(ROW('" + t.request_id +
             "', 'TopupPurseFromAtmCard', '', '', false, '', NULL, NULL)::keeper_call, NULL, NULL, NULL, 9)");
    });
    BOOST_TEST(static_cast<int>(result.code) == 9);
    BOOST_TEST(t.topups() == 0);
    BOOST_TEST(t.audit_rows() == 1);
    BOOST_TEST(t.gauges.in_doubt_recorded.load() == 1u);
    BOOST_TEST(t.gauges.in_doubt_rerun.load() == 0u);
}

// A request nginx sent again because the connection that carried it broke (docs/design.md, "In-doubt
// calls"): the worker that had it may be dead or alive, on this host or another, and its attempt
// committed, still open, or not yet started. Every attempt of a call takes the call's claim first
// (db/functions/keeper_claim.sql); the retry ends whichever server process holds it.
struct retried_topup {
    db_fixture& f;
    std::string request_id = db_fixture::unique("rid");
    std::string purse =
        "Z" + std::to_string(100000000000 + std::chrono::steady_clock::now().time_since_epoch().count() % 899999999999);
    long long card = 0;
    std::string session;
    pqxx::connection first_attempt{keeper::test::shared_database().url()};
    std::string first_pid = std::to_string(first_attempt.backendpid());

    explicit retried_topup(db_fixture& fixture) : f(fixture) {
        const auto u = f.new_user();
        session = u.session;
        card = 800000 + std::chrono::steady_clock::now().time_since_epoch().count() % 100000;
        f.exec("INSERT INTO purses (purse, login_id) SELECT '" + purse + "', id FROM logins WHERE login = '" + u.login +
               "'");
        f.exec("INSERT INTO cards (id, login_id) SELECT " + std::to_string(card) + ", id FROM logins WHERE login = '" +
               u.login + "'");
    }

    // The call's frame as SQL, for an attempt the test makes by hand.
    std::string frame() const {
        return "ROW('" + request_id + "', 'TopupPurseFromAtmCard', '', '', false, '', NULL, NULL)::keeper_call";
    }
    keeper::core::store_result run(keeper::db::pg_store& store, bool retried) {
        return store.topup(f.frame(request_id, "TopupPurseFromAtmCard", retried), f.session(session),
                           {purse, card, "10.50", "15000", "50000"});
    }
    keeper::core::store_result run_again() { return run(f.store, true); }
    long long topups() { return f.count("SELECT count(*) FROM topups WHERE request_id = '" + request_id + "'"); }
    long long audit_rows() { return f.count("SELECT count(*) FROM audit_log WHERE request_id = '" + request_id + "'"); }
    bool first_attempt_ended() {
        return f.count("SELECT count(*) FROM pg_stat_activity WHERE pid = " + first_pid) == 0;
    }
};

BOOST_AUTO_TEST_CASE(a_retried_call_whose_first_attempt_committed_answers_its_recorded_result) {
    retried_topup t{*this};
    pqxx::nontransaction{t.first_attempt}.exec("SELECT keeper_refusal(" + t.frame() + ", NULL, NULL, NULL, 9)");
    BOOST_TEST(static_cast<int>(t.run_again().code) == 9);
    BOOST_TEST(t.topups() == 0);
    BOOST_TEST(t.audit_rows() == 1);
    BOOST_TEST(!t.first_attempt_ended());  // it held no claim any more: left alone
}

BOOST_AUTO_TEST_CASE(a_retried_call_whose_first_attempt_is_still_open_ends_it_and_runs_once) {
    retried_topup t{*this};
    pqxx::work open{t.first_attempt};  // the first attempt, its claim taken, not yet committed
    open.exec("SELECT keeper_refusal(" + t.frame() + ", NULL, NULL, NULL, 9)");
    BOOST_TEST(static_cast<int>(t.run_again().code) == 0);  // ended, rolled back: the call runs
    BOOST_TEST(t.first_attempt_ended());
    BOOST_TEST(t.topups() == 1);
    BOOST_TEST(t.audit_rows() == 1);
}

// The first attempt of a live worker that had not reached the database when nginx sent the call
// again: it starts after the retry committed, finds the call recorded, and changes nothing.
BOOST_AUTO_TEST_CASE(a_first_attempt_that_starts_after_its_retry_answers_the_retrys_result) {
    retried_topup t{*this};
    BOOST_TEST(static_cast<int>(t.run_again().code) == 0);
    keeper::db::pg_store late_worker{keeper::test::shared_database().url(), 1};
    const auto late = t.run(late_worker, false);
    BOOST_TEST(static_cast<int>(late.code) == 0);
    BOOST_TEST(!late.replayed);  // not a keyed replay: no Idempotent-Replayed
    BOOST_TEST(t.topups() == 1);
    BOOST_TEST(t.audit_rows() == 1);
    BOOST_TEST(scalar("SELECT balance::text FROM purses WHERE purse = '" + t.purse + "'") == "10.50");
}

// A live worker's attempt held on the card's lock when its connection to nginx broke: the retry
// ends that attempt's server process (its worker then settles it as in doubt and runs it again),
// and of the two the call runs once.
BOOST_AUTO_TEST_CASE(a_retried_call_whose_first_attempt_runs_in_a_live_worker_is_applied_once) {
    retried_topup t{*this};
    keeper::db::pg_store live_worker{keeper::test::shared_database().url(), 1};
    pqxx::connection holder{keeper::test::shared_database().url()};
    pqxx::work lock{holder};
    lock.exec("SELECT pg_advisory_xact_lock(2, hashint8(" + std::to_string(t.card) + "))");
    const auto card_waiters = [&] {
        return count(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND classid = 2 AND objid = "
            "hashint8(" +
            std::to_string(t.card) + ")::oid");
    };
    auto first = std::async(std::launch::async, [&] { return t.run(live_worker, false); });
    for (int i = 0; i < 500 && card_waiters() == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds{10});
    BOOST_TEST_REQUIRE(card_waiters() == 1);
    const auto first_backend =
        scalar("SELECT min(pid)::text FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND classid = 2");
    auto retry = std::async(std::launch::async, [&] { return t.run_again(); });
    const auto ended = [&] { return count("SELECT count(*) FROM pg_stat_activity WHERE pid = " + first_backend) == 0; };
    for (int i = 0; i < 500 && !(ended() && card_waiters() >= 1); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds{10});
    BOOST_TEST(ended());  // the live worker's attempt was ended by the retry
    lock.commit();
    BOOST_TEST(static_cast<int>(retry.get().code) == 0);
    BOOST_TEST(static_cast<int>(first.get().code) == 0);  // run, or the retry's recorded result
    BOOST_TEST(t.topups() == 1);
    BOOST_TEST(t.audit_rows() == 1);
}

// GET /call-outcome's look (keeper_decide_call): a session sees its login's call by request id, its
// result and time; not another login's, not one recorded more than a day before the id's time,
// nothing without a valid session.
BOOST_AUTO_TEST_CASE(a_session_reads_its_logins_call_by_request_id_and_no_other) {
    const auto owner = new_user();
    const auto other = new_user();
    const auto now = std::chrono::time_point_cast<keeper::core::utc_time::duration>(std::chrono::system_clock::now());
    const auto id =
        std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count()) +
        "0123456789abcdef012";
    BOOST_TEST(static_cast<int>(
                   store.set_account_permits(frame(id, "SetAccountPermits"), session(owner.session), true, false, true)
                       .code) == 0);
    const auto look = [&](const std::string& session, std::chrono::minutes sent) {
        return store.find_call(this->session(session), id, now + sent, now + std::chrono::minutes{1}, soon());
    };
    const auto mine = look(owner.session, std::chrono::minutes{-1});
    BOOST_TEST(static_cast<int>(mine.session) == 0);
    BOOST_TEST_REQUIRE(mine.result.has_value());
    BOOST_TEST(static_cast<int>(*mine.result) == 0);
    BOOST_TEST(std::regex_match(mine.at, std::regex{R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)"}), mine.at);
    const auto theirs = look(other.session, std::chrono::minutes{-1});
    BOOST_TEST(static_cast<int>(theirs.session) == 0);
    BOOST_TEST(!theirs.result.has_value());    // another login's call is no call of this one
    BOOST_TEST(theirs.undecided.count() > 0);  // before the final time nothing is decided
    // Searched from a day before the id's time: a row older than that is no call of this id.
    BOOST_TEST(look(owner.session, std::chrono::hours{23}).result.has_value());
    BOOST_TEST(!look(owner.session, std::chrono::hours{25}).result.has_value());
    const auto unknown = look(unique("nosession"), std::chrono::minutes{-1});
    BOOST_TEST(static_cast<int>(unknown.session) == 2);
    BOOST_TEST(!unknown.result.has_value());
}

// An attempt that reaches the database after its call's deadline changes nothing, whatever the
// worker's own clock said: a worker stopped between its check and its send cannot commit after
// /call-outcome said "none" (keeper_claim, KD001). The deadline the database compares is the one
// the frame carries (call_frame::until, by the wall clock); the store itself sends nothing once it
// has passed.
BOOST_AUTO_TEST_CASE(an_attempt_that_begins_after_its_calls_deadline_changes_nothing) {
    const auto u = new_user();
    // Unvouched (NULL) and vouched for by its host (true, keeper_claim_needed's short way) alike.
    for (const std::string host_recorded : {"NULL", "true"}) {
        BOOST_TEST_CONTEXT("host_recorded " << host_recorded) {
            const auto late = unique("rid");
            try {
                pqxx::nontransaction tx{sql()};
                tx.exec_params(
                    "SELECT keeper_set_account_permits(ROW($1, 'SetAccountPermits', '', '', false, '', "
                    "clock_timestamp() - interval '1 millisecond', " +
                        host_recorded + ")::keeper_call, keeper_session_hash($2), 86400, true, false, true)",
                    late, u.session);
                BOOST_FAIL("an attempt after its deadline ran");
            } catch (const pqxx::sql_error& e) {
                BOOST_TEST(e.sqlstate() == "KD001");
            }
            BOOST_TEST(count("SELECT count(*) FROM audit_log WHERE request_id = '" + late + "'") == 0);
        }
    }

    // The worker's own statement carries the deadline as microseconds since the epoch
    // (statements.hpp, append_frame_field): a millisecond past is refused, a second ahead runs.
    std::string hash = "\\x";
    {
        pqxx::nontransaction tx{sql()};
        hash += tx.exec_params("SELECT encode(keeper_session_hash($1), 'hex')", u.session)[0][0].c_str();
    }
    const auto micros = [](std::chrono::system_clock::duration from_now) {
        return std::chrono::duration_cast<std::chrono::microseconds>(
                   (std::chrono::system_clock::now() + from_now).time_since_epoch())
            .count();
    };
    const auto run = [&](const std::string& rid, std::int64_t deadline) {
        pqxx::nontransaction tx{sql()};
        return tx.exec_params(std::string{keeper::db::statements::set_account_permits.sql()}, rid, "SetAccountPermits",
                              "", "", false, rid, deadline, true, hash, 86400, true, false, true);
    };
    const auto past = unique("rid");
    try {
        run(past, micros(-std::chrono::milliseconds{1}));
        BOOST_FAIL("the worker's statement ran after its deadline");
    } catch (const pqxx::sql_error& e) {
        BOOST_TEST(e.sqlstate() == "KD001");
    }
    BOOST_TEST(count("SELECT count(*) FROM audit_log WHERE request_id = '" + past + "'") == 0);
    const pqxx::result ahead = run(unique("rid"), micros(std::chrono::seconds{1}));
    BOOST_TEST(std::string{ahead[0][0].c_str()} == "0");

    auto passed = frame(unique("rid"), "SetAccountPermits");
    passed.until = keeper::core::deadline{keeper::core::deadline::clock::now() - std::chrono::milliseconds{1}};
    BOOST_CHECK_THROW(store.set_account_permits(passed, session(u.session), true, false, true),
                      keeper::core::not_applied);
    BOOST_TEST(count("SELECT count(*) FROM audit_log WHERE request_id = '" + passed.request_id + "'") == 0);

    auto in_time = frame(unique("rid"), "SetAccountPermits");
    in_time.until = keeper::core::deadline::after(std::chrono::milliseconds{3000});
    BOOST_TEST(static_cast<int>(store.set_account_permits(in_time, session(u.session), true, false, true).code) == 0);
    BOOST_TEST(count("SELECT count(*) FROM audit_log WHERE request_id = '" + in_time.request_id + "' AND at < '" +
                     keeper::core::format_date_time(in_time.until.wall()) + "'") == 1);
}

// W3C Trace Context reaches the database (keeper_claim, keeper_audit): while a call runs, here
// waiting for its claim, pg_stat_activity names its server process for the call's trace, and
// the worker's name is back once it ends. The audit row keeps a client's trace id; a trace nginx
// started has the request id for its id, and the row holds NULL, which audit_calls shows as the
// request id.
BOOST_AUTO_TEST_CASE(a_call_names_its_trace_in_pg_stat_activity_and_its_audit_row) {
    const auto u = new_user();
    const std::string trace = "4bf92f3577b34da6a3ce929d0e0e4736";
    const auto named = "application_name = 'keeper-fcgi trace=" + trace + "'";
    const auto id = unique("rid");
    pqxx::connection holder{keeper::test::shared_database().url()};
    pqxx::work hold{holder};
    hold.exec("SELECT pg_advisory_xact_lock(hashtextextended(" + hold.quote(id) + ", 0))");  // the call's claim
    auto traced = frame(id, "SetAccountPermits");
    traced.trace_id = trace;
    auto call = std::async(std::launch::async,
                           [&] { return store.set_account_permits(traced, session(u.session), true, false, true); });
    bool seen = false;
    for (int i = 0; i < 500 && !seen; ++i) {
        seen = count("SELECT count(*) FROM pg_stat_activity WHERE " + named + " AND wait_event_type = 'Lock'") == 1;
        if (!seen) std::this_thread::sleep_for(std::chrono::milliseconds{10});
    }
    BOOST_TEST(seen);
    hold.commit();
    BOOST_TEST(static_cast<int>(call.get().code) == 0);
    BOOST_TEST(count("SELECT count(*) FROM pg_stat_activity WHERE " + named) == 0);
    BOOST_TEST(count("SELECT count(*) FROM pg_stat_activity WHERE application_name = '" +
                     keeper::db::worker_application_name() + "'") >= 1);
    BOOST_TEST(scalar("SELECT trace_id FROM audit_log WHERE request_id = '" + id + "'") == trace);
    BOOST_TEST(scalar("SELECT trace_id FROM audit_calls WHERE request_id = '" + id + "'") == trace);

    const auto started_by_nginx = unique("rid");
    auto own = frame(started_by_nginx, "SetAccountPermits");
    own.trace_id = started_by_nginx;
    BOOST_TEST(static_cast<int>(store.set_account_permits(own, session(u.session), true, false, true).code) == 0);
    BOOST_TEST(count("SELECT count(*) FROM audit_log WHERE request_id = '" + started_by_nginx +
                     "' AND trace_id IS NULL") == 1);
    BOOST_TEST(scalar("SELECT trace_id FROM audit_calls WHERE request_id = '" + started_by_nginx + "'") ==
               started_by_nginx);
}

// No acknowledgement before replication (docs/design.md): a keyed repeat that finds its call
// recorded answers only once the synchronous standby holds the commit (await_standby). With a
// standby named that never comes, the repeat ends "outcome unknown" at its deadline; with none
// named, it is a replay. The test cluster runs synchronous_commit off, so only this store's
// sessions (on) wait for the absent standby; chaos.under_load, which names one too, runs alone.
BOOST_AUTO_TEST_CASE(a_replay_is_answered_only_once_the_synchronous_standby_has_it) {
    const auto u = new_user();
    keeper::db::pg_store durable{keeper::test::shared_database().url() + " options='-c synchronous_commit=on'"};
    const auto key = unique("key");
    const auto permits = [&](const std::string& request_id) {
        auto keyed = frame(request_id, "SetAccountPermits");
        keyed.idempotency_key = key;
        keyed.fingerprint = std::string(64, 'a');
        keyed.until = keeper::core::deadline::after(std::chrono::milliseconds{1500});
        return durable.set_account_permits(keyed, session(u.session), true, true, false);
    };
    const auto first = permits(unique("rid"));
    BOOST_TEST((static_cast<int>(first.code) == 0 && !first.replayed));
    pqxx::connection admin{keeper::test::shared_database().url()};
    const auto name_standby = [&](const std::string& names) {
        pqxx::nontransaction tx{admin};  // ALTER SYSTEM runs outside a transaction block
        tx.exec(names.empty() ? "ALTER SYSTEM RESET synchronous_standby_names"
                              : "ALTER SYSTEM SET synchronous_standby_names = '" + names + "'");
        tx.exec("SELECT pg_reload_conf()");
        std::this_thread::sleep_for(std::chrono::seconds{1});  // every process reads it on its reload
    };
    name_standby("keeper_absent_standby");
    try {
        BOOST_CHECK_THROW(permits(unique("rid")), keeper::core::outcome_unknown);
    } catch (...) {
        name_standby("");
        throw;
    }
    name_standby("");
    const auto repeat = permits(unique("rid"));
    BOOST_TEST((static_cast<int>(repeat.code) == 0 && repeat.replayed));
}

BOOST_AUTO_TEST_CASE(only_the_worker_role_may_ask_for_a_calls_outcome_and_only_by_request_id) {
    BOOST_TEST(scalar("SELECT has_function_privilege('public', 'keeper_call_outcome(text)', 'EXECUTE')::text") ==
               "false");
    BOOST_TEST(scalar("SELECT coalesce(keeper_call_outcome('" + unique("none") + "')::text, 'null')") == "null");
}

BOOST_AUTO_TEST_SUITE_END()
