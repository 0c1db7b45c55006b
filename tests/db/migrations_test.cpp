#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <sstream>

#include "db/schema/definitions.hpp"
#include "db/schema/migrator.hpp"
#include "db_fixture.hpp"

using namespace keeper;
using keeper::test::shared_database;

namespace {

void exec(const std::string& sql) {
    pqxx::work tx{shared_database().sql()};
    tx.exec(sql);
    tx.commit();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(migrations)

BOOST_AUTO_TEST_CASE(every_file_is_applied_once_with_its_checksum) {
    auto& conn = shared_database().sql();
    BOOST_TEST(db::current_schema_version(conn) == db::expected_schema_version());
    for (const auto& s : db::migration_status(conn)) BOOST_TEST(s.applied);
    std::ostringstream out;
    BOOST_TEST(db::migrate(conn, out) == 0);
    pqxx::work tx{conn};
    const auto r = tx.exec("SELECT version, checksum FROM schema_migrations ORDER BY version");
    BOOST_TEST_REQUIRE(r.size() == db::known_migrations().size());
    for (std::size_t i = 0; i < r.size(); ++i)
        BOOST_TEST(r[i][1].as<std::string>() == db::known_migrations()[i].checksum);
}

// Each file of db/functions defines the one function it is named for, and a fresh install records
// every file as current. keeper_previous_release.sql is the one exception: it defines functions
// named by other files, under the previous release's arguments, for that release's workers during
// an upgrade.
BOOST_AUTO_TEST_CASE(every_function_file_is_applied_and_defines_the_function_it_is_named_for) {
    auto& conn = shared_database().sql();
    const auto status = db::definition_status(conn);
    BOOST_TEST_REQUIRE(status.size() == db::known_definitions().size());
    BOOST_TEST(status.size() >= 15u);
    for (const auto& s : status) BOOST_TEST(db::to_string(s.state) == std::string{"current"}, s.name);
    pqxx::work tx{conn};
    const std::string previous_release = "keeper_previous_release";
    const auto& definitions = db::known_definitions();
    const auto previous =
        std::find_if(definitions.begin(), definitions.end(), [&](const auto& d) { return d.name == previous_release; });
    BOOST_TEST_REQUIRE((previous != definitions.end()));
    std::size_t previous_release_functions = 0;
    for (const auto& d : definitions) {
        if (d.name == previous_release) continue;
        const bool also_previous =
            previous->sql.find("CREATE OR REPLACE FUNCTION " + d.name + "(") != std::string::npos;
        previous_release_functions += also_previous ? 1 : 0;
        BOOST_TEST(tx.exec_params1("SELECT count(*) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace "
                                   "WHERE n.nspname = current_schema() AND p.proname = $1",
                                   d.name)[0]
                           .as<int>() == (also_previous ? 2 : 1),
                   d.name);
        BOOST_TEST(d.sql.find("CREATE OR REPLACE FUNCTION " + d.name + "(") != std::string::npos, d.name);
    }
    BOOST_TEST(previous_release_functions == 13u);  // keeper_audit and the 12 functions the workers call
    // No function outside db/functions: a numbered migration that defined one would be a second home.
    BOOST_TEST(tx.exec1("SELECT count(*) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace "
                        "WHERE n.nspname = current_schema()")[0]
                   .as<std::size_t>() == db::known_definitions().size() - 1 + previous_release_functions);
    for (const auto& m : db::known_migrations()) {
        BOOST_TEST(m.sql.find("CREATE FUNCTION") == std::string::npos, m.name);
        BOOST_TEST(m.sql.find("CREATE OR REPLACE FUNCTION") == std::string::npos, m.name);
    }
}

BOOST_AUTO_TEST_CASE(a_run_that_stops_before_the_newest_migration_applies_no_function) {
    keeper::test::fresh_database old{"before_functions", 3};
    pqxx::work tx{old.sql()};
    BOOST_TEST(tx.exec1("SELECT count(*) FROM schema_definitions")[0].as<int>() == 0);
}

BOOST_AUTO_TEST_CASE(an_applied_file_under_an_earlier_text_it_supersedes_is_recorded_anew) {
    const auto& m = db::known_migrations()[2];  // 0003: its functions moved to db/functions
    BOOST_TEST_REQUIRE(!m.supersedes.empty());
    exec("UPDATE schema_migrations SET checksum = '" + m.supersedes.front() + "' WHERE version = 3");
    bool earlier = false;
    for (const auto& s : db::migration_status(shared_database().sql())) earlier = earlier || s.earlier_text;
    BOOST_TEST(earlier);
    std::ostringstream out;
    BOOST_TEST(db::migrate(shared_database().sql(), out) == 0);
    BOOST_TEST(out.str() == "recorded 3_call_functions as its current text (it supersedes the applied one)\n");
    pqxx::work tx{shared_database().sql()};
    BOOST_TEST(tx.exec1("SELECT checksum FROM schema_migrations WHERE version = 3")[0].as<std::string>() == m.checksum);
}

BOOST_AUTO_TEST_CASE(an_applied_file_that_changed_stops_the_run) {
    exec("UPDATE schema_migrations SET checksum = 'edited' WHERE version = 1");
    std::ostringstream out;
    BOOST_CHECK_THROW(db::migrate(shared_database().sql(), out), db::migration_error);
    BOOST_CHECK_THROW(db::migration_status(shared_database().sql()), db::migration_error);
    exec("UPDATE schema_migrations SET checksum = '" + db::known_migrations()[0].checksum + "' WHERE version = 1");
}

BOOST_AUTO_TEST_CASE(a_database_newer_than_this_build_is_refused) {
    exec("INSERT INTO schema_migrations (version, name, checksum) VALUES (9999, 'future', 'x')");
    std::ostringstream out;
    BOOST_CHECK_THROW(db::migrate(shared_database().sql(), out), db::migration_error);
    exec("DELETE FROM schema_migrations WHERE version = 9999");
}

// Partitions are left out: the parent's comments describe them (psql's \d+ shows the parent).
BOOST_AUTO_TEST_CASE(every_table_and_column_has_a_comment_for_the_dbas) {
    pqxx::work tx{shared_database().sql()};
    const auto tables = tx.exec(
        "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
        "WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition "
        "AND obj_description(c.oid, 'pg_class') IS NULL");
    for (const auto& t : tables) BOOST_ERROR("table without a comment: " << t[0].c_str());
    const auto columns = tx.exec(
        "SELECT c.relname, a.attname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
        "JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped "
        "WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition "
        "AND col_description(c.oid, a.attnum) IS NULL");
    for (const auto& c : columns) BOOST_ERROR("column without a comment: " << c[0].c_str() << "." << c[1].c_str());
    BOOST_TEST(tx.exec1("SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                        "WHERE n.nspname = 'public' AND c.relkind = 'r'")[0]
                   .as<int>() >= 6);
}

BOOST_AUTO_TEST_SUITE_END()
