// The worker's SQL statements as typed handles (db/store/statements.hpp): each list entry's SQL uses
// exactly its parameters $1..$N, names are unique, every statement returns named columns. The
// database tier checks the column names against PostgreSQL itself (pg_store_connection).
#include <boost/test/unit_test.hpp>
#include <regex>
#include <set>
#include <string>

#include "db/store/statements.hpp"
#include "tests/support/files.hpp"

using namespace keeper::db;

BOOST_AUTO_TEST_SUITE(statement_handles)

// Every statement that passes a call's frame runs a function whose first statement takes the call's
// claim (db/functions/keeper_claim.sql) whenever keeper_claim_needed says the attempt needs it: an
// attempt of a call that nginx sent again, or a first attempt that starts after its retry, then
// never applies the call a second time.
BOOST_AUTO_TEST_CASE(every_call_statement_takes_the_calls_claim_first) {
    static const std::regex called{R"(^SELECT (?:[a-z_, ]+ FROM )?(keeper_[a-z_]+)\(ROW\()"};
    std::size_t calls = 0;
    for (const auto& s : worker_statements) {
        const std::string sql{s.sql};
        std::smatch m;
        if (sql.find("::keeper_call") == std::string::npos) continue;
        BOOST_TEST_CONTEXT(s.name) {
            BOOST_TEST_REQUIRE(std::regex_search(sql, m, called));
            const auto text =
                keeper::test::read_file(std::string{KEEPER_SOURCE_DIR} + "/db/functions/" + m[1].str() + ".sql");
            const auto body = text.find("\nBEGIN\n");
            BOOST_TEST_REQUIRE(body != std::string::npos);
            BOOST_TEST(text.substr(body + 7).starts_with(
                "    IF keeper_claim_needed(p_call) THEN PERFORM keeper_claim(p_call); END IF;\n"));
            ++calls;
        }
    }
    BOOST_TEST(calls == 13u);
}

BOOST_AUTO_TEST_CASE(each_statement_uses_exactly_its_parameters) {
    static const std::regex placeholder{R"(\$([0-9]+))"};
    for (const auto& s : worker_statements) {
        BOOST_TEST_CONTEXT(s.name) {
            std::set<std::size_t> used;
            const std::string sql{s.sql};
            for (auto it = std::sregex_iterator(sql.begin(), sql.end(), placeholder); it != std::sregex_iterator();
                 ++it) {
                used.insert(std::stoul((*it)[1].str()));
            }
            BOOST_TEST(used.size() == s.params.size());
            BOOST_TEST((used.empty() || (*used.begin() == 1 && *used.rbegin() == s.params.size())));
            BOOST_TEST(std::set<std::string_view>(s.params.begin(), s.params.end()).size() == s.params.size());
        }
    }
}

BOOST_AUTO_TEST_CASE(names_are_unique_and_columns_named) {
    std::set<std::string_view> names;
    for (const auto& s : worker_statements) {
        BOOST_TEST(names.insert(s.name).second, s.name);
        BOOST_TEST(!s.columns.empty(), s.name);
        BOOST_TEST(std::set<std::string_view>(s.columns.begin(), s.columns.end()).size() == s.columns.size(), s.name);
    }
}

BOOST_AUTO_TEST_CASE(a_handle_knows_its_columns_at_compile_time) {
    static_assert(statements::find_code.column("code_hash") == "code_hash");
    static_assert(statements::topup.param_count == 15);  // the frame's 8, then 7
    BOOST_TEST(statements::find_application.column("enabled") == "enabled");
}

// A write without the frame would write no audit row, or run again on every repeat of a keyed call.
BOOST_AUTO_TEST_CASE(every_write_passes_the_call_frame_first) {
    const std::set<std::string_view> reads{
        "find_login_secret",   "find_application", "call_outcome",  "decide_call",   "await_standby",   "own_backend",
        "end_backend",         "backend_running",  "mark_retried",  "claim_holders", "worker_backends", "ping",
        "synchronous_standby", "writable",         "database_clock"};
    int writes = 0;
    for (const auto& s : worker_statements) {
        if (reads.contains(s.name)) continue;
        ++writes;
        BOOST_TEST_CONTEXT(s.name) {
            BOOST_TEST_REQUIRE(s.params.size() >= call_frame_fields.size());
            for (std::size_t i = 0; i < call_frame_fields.size(); ++i) BOOST_TEST(s.params[i] == call_frame_fields[i]);
            BOOST_TEST(std::string{s.sql}.find("(ROW($1, $2, $3, $4, $5, $6, timestamptz 'epoch' + $7::bigint * "
                                               "interval '1 microsecond', $8)::keeper_call") != std::string::npos);
        }
    }
    BOOST_TEST(writes == 13);
}

BOOST_AUTO_TEST_CASE(a_call_statement_is_composed_around_the_frame) {
    BOOST_TEST(
        statements::set_account_permits.sql() ==
        "SELECT keeper_set_account_permits(ROW($1, $2, $3, $4, $5, $6, timestamptz 'epoch' + $7::bigint * interval "
        "'1 microsecond', $8)::keeper_call, $9, $10, $11, $12, $13) AS result");
    BOOST_TEST(
        statements::find_code.sql() ==
        "SELECT result, login_id, code_hash FROM keeper_code_hash(ROW($1, $2, $3, $4, $5, $6, timestamptz 'epoch' + "
        "$7::bigint * interval '1 microsecond', $8)::keeper_call, $9, $10, $11, $12, $13)");
}

BOOST_AUTO_TEST_SUITE_END()
