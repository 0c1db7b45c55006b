// The PostgreSQL store survives losing its connection: the call that finds it lost is a server
// fault, and the next call opens a fresh connection.
#include <boost/test/unit_test.hpp>

#include "db_fixture.hpp"

using keeper::test::db_fixture;

BOOST_FIXTURE_TEST_SUITE(pg_store_connection, db_fixture)

BOOST_AUTO_TEST_CASE(a_lost_connection_fails_one_call_and_is_reopened) {
    setenv("PGAPPNAME", "keeper-store-test", 1);
    const auto session = unique("s");
    BOOST_TEST(check_session(session, "a") == 2);  // connected
    {
        pqxx::work tx{sql()};
        tx.exec("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'keeper-store-test'");
        tx.commit();
    }
    BOOST_TEST(check_session(session, "a") == -500);
    BOOST_TEST(check_session(session, "a") == 2);
    BOOST_TEST(store.healthy());
}

BOOST_AUTO_TEST_CASE(health_is_200_with_the_database_and_503_without) {
    keeper::core::http_request r{"GET", "/health", "", "", std::nullopt, "h", "http", "r", "", false};
    BOOST_TEST(keeper::core::handle_request(r, store, cfg).response.status == 200);
    keeper::db::pg_store nowhere{"host=/nonexistent dbname=keeper connect_timeout=1"};
    BOOST_TEST(keeper::core::handle_request(r, nowhere, cfg).response.status == 503);
}

BOOST_AUTO_TEST_CASE(an_unreachable_database_is_a_server_fault_not_a_crash) {
    keeper::db::pg_store nowhere{"host=/nonexistent dbname=keeper connect_timeout=1"};
    keeper::core::http_request r{"GET", "/AccountApi.asmx/CheckSessionEx", "sessionId=a&appId=b", "", std::nullopt, "h", "http", "r", "", false};
    const auto out = keeper::core::handle_request(r, nowhere, cfg);
    BOOST_TEST(out.response.status == 500);
    BOOST_TEST(out.log.detail == "cannot connect to the database");
    BOOST_TEST(!nowhere.healthy());
}

BOOST_AUTO_TEST_SUITE_END()
