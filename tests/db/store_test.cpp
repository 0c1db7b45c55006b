// The PostgreSQL store survives losing its connection: one the server closed while idle is
// replaced before a call sends anything on it; one lost during a call makes that call a server fault.
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <regex>
#include <thread>

#include "core/domain/call_context.hpp"
#include "db/store/statements.hpp"
#include "db_fixture.hpp"

using keeper::test::db_fixture;

BOOST_FIXTURE_TEST_SUITE(pg_store_connection, db_fixture)

// Every statement of the worker, as the database sees it: it prepares (the functions it calls
// exist with these arguments) and returns exactly the columns its handle names, in order. LIMIT 0
// around it: nothing is called, nothing changes.
BOOST_AUTO_TEST_CASE(every_statement_returns_the_columns_its_handle_names) {
    static const std::regex placeholder{R"(\$[0-9]+)"};
    for (const auto& s : keeper::db::worker_statements) {
        BOOST_TEST_CONTEXT(s.name) {
            pqxx::work tx{sql()};
            const auto r = tx.exec("SELECT * FROM (" + std::regex_replace(std::string{s.sql}, placeholder, "NULL") + ") AS s LIMIT 0");
            BOOST_TEST_REQUIRE(r.columns() == s.columns.size());
            for (pqxx::row::size_type i = 0; i < r.columns(); ++i) BOOST_TEST(std::string_view{r.column_name(i)} == s.columns[i]);
        }
    }
}

// The server ended the idle connection (a restart, pg_terminate_backend): the next call finds the
// socket readable before sending anything, opens a new connection and succeeds.
BOOST_AUTO_TEST_CASE(a_connection_the_server_closed_while_idle_is_replaced_before_a_call_uses_it) {
    setenv("PGAPPNAME", "keeper-store-test", 1);
    const auto session = unique("s");
    BOOST_TEST(check_session(session, "a") == 2);  // connected
    {
        pqxx::work tx{sql()};
        tx.exec("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'keeper-store-test'");
        tx.commit();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds{200});  // the termination reaches the socket
    BOOST_TEST(check_session(session, "a") == 2);
    BOOST_TEST(count("SELECT count(*) FROM pg_stat_activity WHERE application_name = 'keeper-store-test'") == 1);
    BOOST_TEST(store.healthy());
}

BOOST_AUTO_TEST_CASE(health_is_200_with_the_database_and_503_without) {
    keeper::core::http_request r{"GET", "/health", "", "", std::nullopt, "h", "http", "r", "", false, "127.0.0.1"};
    BOOST_TEST(keeper::core::handle_request(r, store, cfg).response.status == 200);
    keeper::db::pg_store nowhere{"host=/nonexistent dbname=keeper connect_timeout=1"};
    BOOST_TEST(keeper::core::handle_request(r, nowhere, cfg).response.status == 503);
}

BOOST_AUTO_TEST_CASE(an_unreachable_database_is_a_server_fault_not_a_crash) {
    keeper::db::pg_store nowhere{"host=/nonexistent dbname=keeper connect_timeout=1"};
    keeper::core::http_request r{"GET", "/AccountApi.asmx/CheckSessionEx", "sessionId=a&appId=b", "", std::nullopt, "h", "http", "r", "", false, "127.0.0.1"};
    const auto out = keeper::core::handle_request(r, nowhere, cfg);
    BOOST_TEST(out.response.status == 500);
    BOOST_TEST(out.log.detail == "cannot connect to the database");
    BOOST_TEST(!nowhere.healthy());
}

// After a switchover the host a connection knew as primary may answer as a standby: "cannot
// execute … in a read-only transaction" (25006). Nothing was done, so the call runs again, once,
// on a new connection, and succeeds where the primary is. Here the old connection is read-only
// (opened while the database said so) and a new one is not.
BOOST_AUTO_TEST_CASE(a_call_a_standby_refused_runs_again_on_a_new_connection) {
    const auto database = scalar("SELECT current_database()");
    const auto session = unique("s");
    keeper::db::pg_store one_connection{keeper::test::shared_database().url(), 1};
    exec("ALTER DATABASE \"" + database + "\" SET default_transaction_read_only = on");
    const auto check = [&] {
        keeper::core::call_context ctx{one_connection, cfg, unique("rid"), "CheckSessionEx"};
        return one_connection.check_session(ctx.tag(), ctx.session(session), "a");
    };
    // A read opens the store's one connection, read-only like a standby's; a write is refused
    // there and on the retry's connection alike: a server fault, nothing written.
    BOOST_TEST(!one_connection.find_login_secret(unique("nobody")));
    BOOST_CHECK_THROW(check(), keeper::core::store_error);
    BOOST_TEST(!one_connection.find_login_secret(unique("nobody")));  // read-only again
    exec("ALTER DATABASE \"" + database + "\" RESET default_transaction_read_only");
    // Now "the primary has moved": the open connection still refuses, the retry's new one writes.
    BOOST_TEST(static_cast<int>(check()) == 2);  // session_not_found
    BOOST_TEST(count("SELECT count(*) FROM audit_log WHERE operation = 'CheckSessionEx' AND request_id LIKE 'rid%'") >= 1);
}

BOOST_AUTO_TEST_SUITE_END()
