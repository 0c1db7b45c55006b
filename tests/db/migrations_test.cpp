#include <boost/test/unit_test.hpp>
#include <sstream>

#include "db/migrator.hpp"
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
    for (std::size_t i = 0; i < r.size(); ++i) BOOST_TEST(r[i][1].as<std::string>() == db::known_migrations()[i].checksum);
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
                        "WHERE n.nspname = 'public' AND c.relkind = 'r'")[0].as<int>() >= 6);
}

BOOST_AUTO_TEST_SUITE_END()
