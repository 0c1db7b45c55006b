// The database for the long run: monthly partitions of the history (pg_partman), their creation
// ahead of time, retention, the purges, keeperctl maintain run twice at once, the conversion of a
// populated database, and the roles. Each case has a database of its own: they change partitions.
#include <boost/test/unit_test.hpp>

#include <future>
#include <atomic>
#include <sstream>
#include <unistd.h>
#include <fstream>
#include <filesystem>
#include <thread>

#include "core/api/settings.hpp"
#include "keeperctl/maintenance.hpp"
#include "db/schema/migrator.hpp"
#include "db/store/pg_store.hpp"
#include "keeperctl/provisioning.hpp"
#include "db/schema/roles.hpp"
#include "db/secrets/secret_rotation.hpp"
#include "tests/support/fresh_database.hpp"
#include "tests/support/http_client.hpp"
#include "tests/support/test_env.hpp"

using keeper::test::fresh_database;
using keeper::test::soon;

namespace {

long long count(pqxx::connection& c, const std::string& query) { return pqxx::work{c}.exec1(query)[0].as<long long>(); }
std::string text(pqxx::connection& c, const std::string& query) {
    return pqxx::work{c}.exec1(query)[0].as<std::string>("");
}
void exec(pqxx::connection& c, const std::string& sql) {
    pqxx::work tx{c};
    tx.exec(sql);
    tx.commit();
}

// Names of the partitions of a table, oldest first and the default last, as one string.
std::string partition_names(pqxx::connection& c, const std::string& parent) {
    return text(c, "SELECT string_agg(c.relname, ' ' ORDER BY c.relname = '" + parent +
                       "_default', c.relname) "
                       "FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = '" +
                       parent + "'::regclass");
}

// The partition names for the month `offset` months from now, e.g. audit_log_p2026_11.
std::string month_partition(pqxx::connection& c, const std::string& parent, int offset) {
    return text(
        c, "SELECT '" + parent + "_p' || to_char(now() + interval '" + std::to_string(offset) + " months', 'YYYY_MM')");
}

int maintain(pqxx::connection& c, const keeper::core::settings& cfg, std::string* report = nullptr) {
    std::ostringstream out;
    const int rc = keeper::db::maintain(c, cfg, out);
    BOOST_TEST_MESSAGE(out.str());
    if (report) *report = out.str();
    return rc;
}

// How a statement run as some role ends: "" if it succeeds, "refused" for insufficient_privilege
// (SQLSTATE 42501: "permission denied", "must be owner"), else the error.
std::string outcome_of(const std::string& url, const std::string& statement) {
    pqxx::connection c{url};
    try {
        pqxx::work tx{c};
        tx.exec(statement);
        tx.commit();
        return "";
    } catch (const pqxx::insufficient_privilege&) {
        return "refused";
    } catch (const pqxx::sql_error& e) {
        return e.what();
    }
}

// A database as keeper 3 (before partitioning) left it, holding history that reaches back into the
// month `months` before this one (or the one before that) whatever today's day of the month:
// (months + 1) x 31 days of audit rows.
struct old_database {
    fresh_database db{"old", 3};
    explicit old_database(int months) {
        exec(db.sql(),
             "INSERT INTO logins (login, shared_secret) VALUES ('old', 's');"
             "INSERT INTO purses (purse, login_id) SELECT 'Z000000000001', id FROM logins WHERE login = 'old';"
             "INSERT INTO cards (id, login_id) SELECT 1, id FROM logins WHERE login = 'old';"
             "INSERT INTO audit_log (at, login, operation, result, request_id) "
             "  SELECT now() - g * interval '6 hours', 'old', 'Authenticate', g % 12, 'r' || g "
             "  FROM generate_series(0, " +
                 std::to_string((months + 1) * 31 * 4) +
                 ") g;"
                 "INSERT INTO topups (card_id, purse, amount, created_at, request_id) "
                 "  SELECT 1, 'Z000000000001', (g % 100) + 0.25, now() - g * interval '1 day', 't' || g "
                 "  FROM generate_series(0, " +
                 std::to_string(months * 30) + ") g;");
    }
};

const char* audit_digest =
    "SELECT count(*) || ':' || md5(string_agg(concat_ws('|', id, at, login, operation, result, request_id), ',' ORDER "
    "BY id)) FROM audit_log";
const char* topup_digest =
    "SELECT count(*) || ':' || md5(string_agg(concat_ws('|', id, card_id, purse, amount, created_at, request_id), ',' "
    "ORDER BY id)) FROM topups";

}  // namespace

BOOST_AUTO_TEST_SUITE(partitions)

BOOST_AUTO_TEST_CASE(a_new_database_has_this_month_three_ahead_and_a_default) {
    fresh_database db{"new"};
    auto& c = db.sql();
    for (const std::string t : {"audit_log", "topups"}) {
        const auto names = partition_names(c, t);
        for (int m = 0; m <= 3; ++m)
            BOOST_TEST(names.find(month_partition(c, t, m)) != std::string::npos, t << ": " << names);
        BOOST_TEST(names.find(t + "_default") != std::string::npos, names);
        BOOST_TEST(text(c, "SELECT relkind::text FROM pg_class WHERE oid = '" + t + "'::regclass") == "p");
    }
}

BOOST_AUTO_TEST_CASE(a_row_dated_past_the_partitions_is_kept_in_the_default_and_maintain_moves_it_out) {
    fresh_database db{"future"};
    auto& c = db.sql();
    exec(c,
         "INSERT INTO audit_log (at, operation, result, request_id) VALUES (now() + interval '10 months', 'GetUtcNow', "
         "0, 'far')");
    BOOST_TEST(text(c, "SELECT tableoid::regclass::text FROM audit_log WHERE request_id = 'far'") ==
               "audit_log_default");
    BOOST_TEST(maintain(c, keeper::core::settings{}) == 0);
    BOOST_TEST(text(c, "SELECT tableoid::regclass::text FROM audit_log WHERE request_id = 'far'") ==
               month_partition(c, "audit_log", 10));
    BOOST_TEST(count(c, "SELECT count(*) FROM audit_log_default") == 0);
    BOOST_TEST(maintain(c, keeper::core::settings{}) == 0);  // and again: nothing left to do, no error
}

BOOST_AUTO_TEST_CASE(the_daily_limit_sum_reads_one_small_table_by_index_never_the_partitions) {
    fresh_database db{"plan"};
    auto& c = db.sql();
    // The plan PL/pgSQL keeps after five calls is the generic one, made without knowing the card,
    // from statistics of whenever the table was last analysed: here while it was young (4 cards),
    // then a day of top-ups over 500 cards arrives. With an index on the time alone that plan read
    // the whole day and filtered by card (migration 0007).
    exec(c,
         "INSERT INTO card_recent_topups (card_id, created_at, amount) "
         "SELECT 1 + g % 4, now() - (g % 1440) * interval '1 minute', 1 FROM generate_series(1, 100) g; "
         "ANALYZE card_recent_topups; "
         "INSERT INTO card_recent_topups (card_id, created_at, amount) "
         "SELECT 1 + g % 500, now() - (g % 1440) * interval '1 minute', 1 FROM generate_series(1, 20000) g");
    exec(c, "SET enable_seqscan = off");  // as keeper_topup runs it
    exec(c, "SET plan_cache_mode = force_generic_plan");
    exec(c,
         "PREPARE day_sum(bigint) AS SELECT COALESCE(sum(amount), 0) FROM card_recent_topups "
         "WHERE card_id = $1 AND created_at > now() - interval '24 hours'");
    const auto plan = text(c, "EXPLAIN (FORMAT JSON) EXECUTE day_sum(1)");
    BOOST_TEST(plan.find("\"Index Name\": \"card_recent_topups_card_created_at_idx\"") != std::string::npos, plan);
    BOOST_TEST(plan.find("\"Index Cond\": \"((card_id = $1) AND") != std::string::npos, plan);
    BOOST_TEST(plan.find("Seq Scan") == std::string::npos, plan);
    BOOST_TEST(plan.find("\"Filter\"") == std::string::npos, plan);
    const auto body =
        text(c,
             "SELECT prosrc FROM pg_proc WHERE oid = "
             "'keeper_topup(keeper_call, bytea, integer, text, bigint, numeric, numeric, numeric)'::regprocedure");
    BOOST_TEST(body.find("FROM card_recent_topups") != std::string::npos);
    BOOST_TEST(body.find("FROM topups") == std::string::npos);  // the partitioned table is only written
}

BOOST_AUTO_TEST_CASE(converting_a_populated_database_keeps_every_row_in_its_month) {
    old_database old{15};
    auto& c = old.db.sql();
    const auto audit_before = text(c, audit_digest);
    const auto topups_before = text(c, topup_digest);
    BOOST_TEST_MESSAGE("before: audit " << audit_before << ", topups " << topups_before);
    std::ostringstream log;
    BOOST_TEST(keeper::db::migrate(c, log) == keeper::db::expected_schema_version() - 3);
    BOOST_TEST(text(c, audit_digest) == audit_before);
    BOOST_TEST(text(c, topup_digest) == topups_before);
    BOOST_TEST(count(c, "SELECT count(*) FROM audit_log_default") == 0);
    BOOST_TEST(count(c, "SELECT count(*) FROM topups_default") == 0);
    BOOST_TEST(count(c,
                     "SELECT count(*) FROM audit_log WHERE tableoid::regclass::text <> 'audit_log_p' || to_char(at, "
                     "'YYYY_MM')") == 0);
    BOOST_TEST(count(c, "SELECT count(*) FROM pg_inherits WHERE inhparent = 'audit_log'::regclass") >= 16 + 3);
    // New rows continue the old ids.
    exec(c, "INSERT INTO audit_log (operation, result, request_id) VALUES ('GetUtcNow', 0, 'after')");
    BOOST_TEST(count(c,
                     "SELECT count(*) FROM audit_log WHERE request_id = 'after' AND id > (SELECT max(id) FROM "
                     "audit_log WHERE request_id <> 'after')") == 1);
}

BOOST_AUTO_TEST_SUITE_END()

// The history's layout for its size: the per-login, per-card and per-purse indexes lead with the
// hour (migration 0011, docs/schema.md "Indexes on the history"), built partition by partition
// outside the migration's transaction (db/schema/partition_indexes.hpp); autovacuum by inserts
// (migration 0013).
BOOST_AUTO_TEST_SUITE(history_layout)

// Each partition's shares of the parent's indexes, as "partition:index,index" lines.
std::string shares_of(pqxx::connection& c, const std::string& parent) {
    return text(
        c,
        "SELECT string_agg(p.relname || ':' || (SELECT string_agg(pi.indexrelid::regclass::text, ',' ORDER BY "
        "pi.indexrelid::regclass::text) "
        "  FROM pg_inherits ii JOIN pg_index ci ON ci.indexrelid = ii.inhrelid AND ci.indisvalid "
        "  JOIN pg_index pi ON pi.indexrelid = ii.inhparent WHERE ci.indrelid = p.oid), ' ' ORDER BY p.relname) "
        "FROM pg_inherits i JOIN pg_class p ON p.oid = i.inhrelid WHERE i.inhparent = '" +
            parent + "'::regclass");
}

// What a query returns, as a count and a digest of the ids in order.
std::string ids_of(pqxx::connection& c, const std::string& from_where) {
    return text(c, "SELECT count(*) || ':' || md5(COALESCE(string_agg(id::text, ',' ORDER BY id), '')) " + from_where);
}

BOOST_AUTO_TEST_CASE(an_upgraded_database_has_the_hour_led_indexes_on_every_partition_and_no_login_led_ones) {
    old_database old{15};
    auto& c = old.db.sql();
    std::ostringstream log;
    keeper::db::migrate(c, log);
    BOOST_TEST_MESSAGE(log.str());
    BOOST_TEST(log.str().find("audit_log_hour_caller_idx: built public." + month_partition(c, "audit_log", -15) +
                              "_hour_caller_idx") != std::string::npos,
               log.str());
    BOOST_TEST(text(c,
                    "SELECT string_agg(indexrelid::regclass::text || ':' || indisvalid, ' ' ORDER BY "
                    "indexrelid::regclass::text) FROM pg_index "
                    "WHERE indrelid = 'audit_log'::regclass") ==
               "audit_log_hour_caller_idx:true audit_log_pkey:true audit_log_request_id_idx:true");
    BOOST_TEST(text(c,
                    "SELECT string_agg(indexrelid::regclass::text || ':' || indisvalid, ' ' ORDER BY "
                    "indexrelid::regclass::text) FROM pg_index "
                    "WHERE indrelid = 'topups'::regclass") ==
               "topups_hour_card_idx:true topups_hour_purse_idx:true topups_pkey:true topups_request_id_idx:true");
    const auto audit = shares_of(c, "audit_log");
    const std::string shares = ":audit_log_hour_caller_idx,audit_log_pkey,audit_log_request_id_idx";
    BOOST_TEST(audit.find(month_partition(c, "audit_log", -15) + shares + " ") != std::string::npos, audit);
    BOOST_TEST(audit.find("audit_log_default" + shares) != std::string::npos, audit);
    for (const auto* parent : {"audit_log", "topups"}) {
        const auto n =
            count(c, std::string{"SELECT count(*) FROM pg_index WHERE indrelid = '"} + parent + "'::regclass");
        BOOST_TEST(
            count(c, std::string{"SELECT count(*) FROM pg_inherits i JOIN pg_index ci ON ci.indexrelid = i.inhrelid "
                                 "AND ci.indisvalid "
                                 "WHERE i.inhparent IN (SELECT indexrelid FROM pg_index WHERE indrelid = '"} +
                         parent + "'::regclass)") ==
            n * count(c, std::string{"SELECT count(*) FROM pg_inherits WHERE inhparent = '"} + parent + "'::regclass"));
    }
}

BOOST_AUTO_TEST_CASE(a_login_card_or_purse_is_read_an_hour_at_a_time_and_gets_what_a_plain_query_gets) {
    old_database old{3};
    auto& c = old.db.sql();
    std::ostringstream log;
    keeper::db::migrate(c, log);
    // Others' history around the one asked about, enough that reading the months whole would cost.
    exec(c,
         "INSERT INTO audit_log (at, login, operation, result, request_id) "
         "SELECT now() - g * interval '7 minutes', 'other', 'GetUtcNow', 0, 'o' || g FROM generate_series(0, 5000) g;"
         "INSERT INTO purses (purse, login_id) SELECT 'Z000000000002', id FROM logins WHERE login = 'old';"
         "INSERT INTO cards (id, login_id) SELECT 2, id FROM logins WHERE login = 'old';"
         "INSERT INTO topups (card_id, purse, amount, created_at, request_id) "
         "SELECT 2, 'Z000000000002', 1, now() - g * interval '5 minutes', 'u' || g FROM generate_series(0, 20000) g;"
         // Rows as keeper writes them now, naming the login by id, beside the older ones by name.
         "INSERT INTO audit_log (at, login_id, operation, result, request_id) "
         "SELECT now() - g * interval '1 day' - interval '3 minutes', (SELECT id FROM logins WHERE login = 'old'), "
         "'SetAccountPermits', 0, 'n' || g FROM generate_series(0, 44) g;"
         "ANALYZE audit_log; ANALYZE topups");
    const auto calls = ids_of(c, "FROM keeper_login_calls('old', now() - interval '40 days')");
    BOOST_TEST(calls ==
               ids_of(c, "FROM audit_calls WHERE login = 'old' AND at >= now() - interval '40 days' AND at < now()"));
    BOOST_TEST(calls.substr(0, 4) == "200:");  // four a day by name, one by id
    BOOST_TEST(ids_of(c, "FROM keeper_login_calls('old', now() - interval '40 days', now() - interval '10 days')") ==
               ids_of(c,
                      "FROM audit_calls WHERE login = 'old' AND at >= now() - interval '40 days' AND at < now() - "
                      "interval '10 days'"));
    const auto card = ids_of(c, "FROM keeper_card_topups(1, now() - interval '75 days')");
    BOOST_TEST(
        card ==
        ids_of(c, "FROM topups WHERE card_id = 1 AND created_at >= now() - interval '75 days' AND created_at < now()"));
    BOOST_TEST(card.substr(0, 3) == "75:");  // one a day
    BOOST_TEST(ids_of(c, "FROM keeper_purse_topups('Z000000000001', now() - interval '75 days')") == card);
    BOOST_TEST(ids_of(c, "FROM keeper_purse_topups('Z000000000003', now() - interval '75 days')") ==
               "0:" + text(c, "SELECT md5('')"));
    // Whatever the planner prefers on tables this small, the index answers it: no row is read
    // but through it.
    exec(c, "SET enable_seqscan = off; SET enable_bitmapscan = off");
    for (const auto& [query, index] :
         {std::pair{"keeper_login_calls('old', now() - interval '40 days')", "_hour_caller_idx"},
          std::pair{"keeper_card_topups(1, now() - interval '75 days')", "_hour_card_idx"},
          std::pair{"keeper_purse_topups('Z000000000001', now() - interval '75 days')", "_hour_purse_idx"}}) {
        const auto plan = text(c, std::string{"EXPLAIN (FORMAT JSON) SELECT * FROM "} + query);
        BOOST_TEST(plan.find(index) != std::string::npos, plan);
        BOOST_TEST(plan.find("date_trunc('hour'::text") != std::string::npos, plan);  // an index condition on the hour
        BOOST_TEST(plan.find("Seq Scan") == std::string::npos, plan);
    }
    const auto reads =
        text(c, "EXPLAIN (FORMAT JSON) SELECT * FROM keeper_login_calls('old', now() - interval '40 days')");
    // Both of its reads are the one index's conditions: by id, and by name where no id is.
    BOOST_TEST(reads.find("AND (login_id = $") != std::string::npos, reads);
    BOOST_TEST(reads.find("AND (login_id IS NULL) AND (login = ") != std::string::npos, reads);
}

BOOST_AUTO_TEST_CASE(an_index_a_broken_migrate_left_unbuilt_is_finished_by_maintain) {
    fresh_database db{"unbuilt"};
    auto& c = db.sql();
    exec(c,
         "INSERT INTO audit_log (at, login, app_id, operation, result, request_id) "
         "SELECT now() - g * interval '1 hour', 'x', 'app', 'GetUtcNow', 0, 'r' || g FROM generate_series(0, 100) g");
    // Declared as a migration declares it; this month's share built and then, as an interrupted
    // CREATE INDEX CONCURRENTLY leaves it, invalid.
    const auto month = month_partition(c, "audit_log", 0);
    exec(c,
         "CREATE INDEX audit_log_hour_app_idx ON ONLY audit_log ((date_trunc('hour', at AT TIME ZONE 'UTC')), app_id)");
    exec(c, "CREATE INDEX " + month + "_hour_app_idx ON " + month +
                " ((date_trunc('hour', at AT TIME ZONE 'UTC')), app_id)");
    exec(c, "UPDATE pg_index SET indisvalid = false WHERE indexrelid = '" + month + "_hour_app_idx'::regclass");
    std::string report;
    BOOST_TEST(maintain(c, keeper::core::settings{}, &report) == 0);
    BOOST_TEST(
        report.find("audit_log_hour_app_idx: built public." + month + "_hour_app_idx on " + month) != std::string::npos,
        report);
    BOOST_TEST(count(c, "SELECT count(*) FROM pg_index WHERE NOT indisvalid") == 0);
    BOOST_TEST(shares_of(c, "audit_log").find(month + ":audit_log_hour_app_idx,audit_log_hour_caller_idx,") !=
               std::string::npos);
    BOOST_TEST(count(c, "SELECT count(*) FROM pg_inherits WHERE inhparent = 'audit_log_hour_app_idx'::regclass") ==
               count(c, "SELECT count(*) FROM pg_inherits WHERE inhparent = 'audit_log'::regclass"));
    BOOST_TEST(maintain(c, keeper::core::settings{}, &report) == 0);
    BOOST_TEST(report.find("built") == std::string::npos, report);  // nothing left to do
}

BOOST_AUTO_TEST_CASE(every_history_partition_and_every_one_made_later_is_vacuumed_by_its_inserts_and_frozen_at_once) {
    fresh_database db{"vacuum"};
    auto& c = db.sql();
    const auto settings = [&](const std::string& partition) {
        return text(c, "SELECT string_agg(o, ' ' ORDER BY o) FROM pg_class, unnest(reloptions) o WHERE oid = '" +
                           partition + "'::regclass");
    };
    const std::string audit =
        "autovacuum_freeze_min_age=0 autovacuum_vacuum_insert_scale_factor=0 "
        "autovacuum_vacuum_insert_threshold=1000000";
    const std::string topups =
        "autovacuum_freeze_min_age=0 autovacuum_vacuum_insert_scale_factor=0 autovacuum_vacuum_insert_threshold=100000";
    for (int month = 0; month <= 3; ++month) {
        BOOST_TEST(settings(month_partition(c, "audit_log", month)) == audit);
        BOOST_TEST(settings(month_partition(c, "topups", month)) == topups);
    }
    BOOST_TEST(settings("audit_log_default") == audit);
    // A partition pg_partman makes takes its template's.
    const auto ahead = month_partition(c, "audit_log", 3);
    exec(c, "DROP TABLE " + ahead);
    BOOST_TEST(maintain(c, keeper::core::settings{}) == 0);
    BOOST_TEST(settings(ahead) == audit);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(maintenance)

BOOST_AUTO_TEST_CASE(retention_drops_exactly_the_months_older_than_the_limit) {
    old_database old{15};
    auto& c = old.db.sql();
    std::ostringstream log;
    keeper::db::migrate(c, log);
    const auto kept =
        count(c, "SELECT count(*) FROM audit_log WHERE at >= date_trunc('month', now() - interval '13 months')");
    const auto kept_topups =
        count(c, "SELECT count(*) FROM topups WHERE created_at >= date_trunc('month', now() - interval '5 months')");
    keeper::core::settings cfg;
    cfg.topup_retention_months = 5;
    std::string report;
    BOOST_TEST(maintain(c, cfg, &report) == 0);
    BOOST_TEST(count(c, "SELECT count(*) FROM audit_log") == kept);
    BOOST_TEST(count(c, "SELECT count(*) FROM topups") == kept_topups);
    const auto oldest = partition_names(c, "audit_log").substr(0, std::string{"audit_log_p2000_00"}.size());
    BOOST_TEST(oldest == month_partition(c, "audit_log", -13));
    BOOST_TEST(count(c, "SELECT count(*) FROM pg_class WHERE relname = '" + month_partition(c, "audit_log", -14) +
                            "'") == 0);  // dropped
    const auto dropped =
        report.substr(0, report.find('\n'));  // "audit_log: ...; dropped <oldest> ... <-14> (retention ...)"
    const auto listed = dropped.find(" " + month_partition(c, "audit_log", -15) + " ");
    BOOST_TEST(dropped.find("dropped ") != std::string::npos, report);
    BOOST_TEST((listed != std::string::npos && listed > dropped.find("dropped ")), report);
}

BOOST_AUTO_TEST_CASE(detach_only_leaves_the_old_months_as_tables_for_archiving) {
    old_database old{4};
    auto& c = old.db.sql();
    std::ostringstream log;
    keeper::db::migrate(c, log);
    keeper::core::settings cfg;
    cfg.audit_retention_months = 2;
    cfg.retention_detach_only = true;
    BOOST_TEST(maintain(c, cfg) == 0);
    const auto old_month = month_partition(c, "audit_log", -4);
    BOOST_TEST(partition_names(c, "audit_log").find(old_month) == std::string::npos);
    BOOST_TEST(count(c, "SELECT count(*) FROM " + old_month) > 0);  // still there, detached
}

BOOST_AUTO_TEST_CASE(expired_sessions_stale_failures_old_keys_retried_and_decided_calls_are_purged_in_batches) {
    fresh_database db{"purge"};
    auto& c = db.sql();
    exec(
        c,
        "INSERT INTO logins (login, shared_secret) VALUES ('p', 's');"
        "INSERT INTO sessions (session_hash, login_id, authenticated_at) "
        "  SELECT keeper_session_hash('gone' || g), id, now() - interval '40 days' FROM logins, generate_series(1, 7) "
        "g;"
        "INSERT INTO sessions (session_hash, login_id, authenticated_at) "
        "  SELECT keeper_session_hash('lingers' || g), id, now() - interval '20 days' FROM logins, generate_series(1, "
        "2) g;"
        "INSERT INTO sessions (session_hash, login_id, authenticated_at) SELECT keeper_session_hash('live'), id, now() "
        "FROM logins;"
        "INSERT INTO auth_failures (login, failed_at) SELECT 'p', now() - interval '1 hour' FROM generate_series(1, 5);"
        "INSERT INTO auth_failures (login, failed_at) SELECT 'p', now() FROM generate_series(1, 2);"
        "INSERT INTO card_recent_topups (card_id, created_at, amount) SELECT 1, now() - interval '26 hours', 1 FROM "
        "generate_series(1, 4);"
        "INSERT INTO card_recent_topups (card_id, created_at, amount) SELECT 1, now() - interval '23 hours', 1;"
        "INSERT INTO retried_calls (request_id, at) SELECT 'old' || g, now() - interval '26 hours' FROM "
        "generate_series(1, 5) g;"
        "INSERT INTO retried_calls (request_id, at) VALUES ('recent', now() - interval '1 hour');"
        "INSERT INTO decided_calls (request_id, at) SELECT 'old' || g, now() - interval '26 hours' FROM "
        "generate_series(1, 4) g;"
        "INSERT INTO decided_calls (request_id, at) VALUES ('recent', now() - interval '1 hour');"
        "INSERT INTO idempotency_keys (login, key, operation, fingerprint, result, request_id, created_at) "
        "  SELECT 'p', 'old' || g, 'Op', sha256('x'), 0, 'r' || g, now() - interval '25 hours' FROM generate_series(1, "
        "7) g;"
        "INSERT INTO idempotency_keys (login, key, operation, fingerprint, result, request_id, created_at) "
        "  SELECT 'p', 'kept' || g, 'Op', sha256('x'), 0, 'r' || g, now() - interval '23 hours' FROM "
        "generate_series(1, 2) g;");
    keeper::core::settings cfg;  // session_ttl 1 day, linger 30 days, failure window 900 s
    cfg.purge_batch_rows = 3;
    std::string report;
    BOOST_TEST(maintain(c, cfg, &report) == 0);
    BOOST_TEST(count(c,
                     "SELECT count(*) FROM sessions WHERE session_hash IN (SELECT keeper_session_hash('gone' || g) "
                     "FROM generate_series(1, 7) g)") == 0);
    BOOST_TEST(count(c, "SELECT count(*) FROM sessions") == 3);
    BOOST_TEST(count(c, "SELECT count(*) FROM auth_failures") == 2);
    BOOST_TEST(report.find("sessions: deleted 7 ") != std::string::npos, report);
    BOOST_TEST(report.find("auth_failures: deleted 5 ") != std::string::npos, report);
    BOOST_TEST(count(c, "SELECT count(*) FROM card_recent_topups") == 1);  // the one inside the 24-hour window stays
    BOOST_TEST(report.find("card_recent_topups: deleted 4 ") != std::string::npos, report);
    BOOST_TEST(count(c, "SELECT count(*) FROM retried_calls") == 1);  // a call sent again an hour ago stays listed
    BOOST_TEST(report.find("retried_calls: deleted 5 older than 25 hours") != std::string::npos, report);
    BOOST_TEST(count(c, "SELECT count(*) FROM decided_calls") == 1);  // a call decided an hour ago stays decided
    BOOST_TEST(report.find("decided_calls: deleted 4 older than 25 hours") != std::string::npos, report);
    BOOST_TEST(count(c, "SELECT count(*) FROM idempotency_keys") == 2);  // key_retention_hours 24
    BOOST_TEST(report.find("idempotency_keys: deleted 7 older than 24 hours") != std::string::npos, report);
}

BOOST_AUTO_TEST_CASE(two_runs_at_once_both_succeed_and_leave_one_result) {
    old_database old{15};
    std::ostringstream log;
    keeper::db::migrate(old.db.sql(), log);
    keeper::core::settings cfg;
    const auto run = [&] {
        pqxx::connection c{old.db.url()};
        return maintain(c, cfg);
    };
    auto first = std::async(std::launch::async, run);
    auto second = std::async(std::launch::async, run);
    BOOST_TEST(first.get() == 0);
    BOOST_TEST(second.get() == 0);
    const auto after_both = partition_names(old.db.sql(), "audit_log");
    BOOST_TEST(run() == 0);
    BOOST_TEST(partition_names(old.db.sql(), "audit_log") == after_both);  // idempotent
}

BOOST_AUTO_TEST_CASE(a_run_while_another_holds_the_lock_does_nothing) {
    fresh_database db{"locked"};
    pqxx::connection holder{db.url()};
    pqxx::nontransaction{holder}.exec("SELECT pg_advisory_lock(" + std::to_string(0x6b65657065720002LL) + ")");
    exec(db.sql(),
         "INSERT INTO audit_log (at, operation, result, request_id) VALUES (now() + interval '10 months', 'X', 0, "
         "'far')");
    std::string report;
    BOOST_TEST(maintain(db.sql(), keeper::core::settings{}, &report) == 0);
    BOOST_TEST(report == "another keeperctl maintain is running; nothing done\n");
    BOOST_TEST(count(db.sql(), "SELECT count(*) FROM audit_log_default") == 1);  // untouched
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(database_roles)

BOOST_AUTO_TEST_CASE(the_worker_role_can_append_to_history_but_never_rewrite_it_nor_change_the_schema) {
    fresh_database db{"worker"};
    std::ostringstream out;
    keeper::db::apply_roles(db.sql(), out);
    const auto worker = db.url_as("keeper_worker");
    BOOST_TEST(outcome_of(worker,
                          "SELECT keeper_audit(ROW('r1', 'GetUtcNow', '', '', false, '', NULL, NULL)::keeper_call, "
                          "NULL, NULL, NULL, 0)") == "");
    BOOST_TEST(count(db.sql(), "SELECT count(*) FROM audit_log WHERE request_id = 'r1'") == 1);
    for (const std::string refused :
         {"UPDATE audit_log SET result = 0", "DELETE FROM audit_log", "SELECT * FROM audit_log", "TRUNCATE audit_log",
          "UPDATE topups SET amount = 1", "DELETE FROM topups", "DELETE FROM logins",
          "UPDATE logins SET shared_secret = 'x'", "INSERT INTO cards (id, login_id) VALUES (9, 1)",
          "CREATE TABLE t (x int)", "CREATE TEMP TABLE t (x int)", "DROP TABLE sessions",
          "ALTER TABLE sessions ADD COLUMN x int", "CREATE INDEX ON sessions (login_id)",
          "CREATE FUNCTION f() RETURNS int LANGUAGE sql AS 'SELECT 1'",
          "DROP FUNCTION keeper_audit(keeper_call, bigint, text, text, integer)",
          "ALTER TABLE audit_log DETACH PARTITION audit_log_default"}) {
        const auto state = outcome_of(worker, refused);
        BOOST_TEST(state == "refused", refused << ": " << state);
    }
    BOOST_TEST(count(db.sql(), "SELECT count(*) FROM audit_log WHERE request_id = 'r1'") == 1);
}

// Top-ups name their card and purse without foreign keys (keeper_topup checks both): no role, the
// owner included, deletes either, directly, by TRUNCATE, or by deleting their login.
BOOST_AUTO_TEST_CASE(cards_and_purses_are_never_deleted_not_even_by_the_owner) {
    fresh_database db{"never_deleted"};
    exec(db.sql(), "INSERT INTO logins (login, shared_secret) VALUES ('kept', 's')");
    exec(db.sql(), "INSERT INTO purses (purse, login_id) SELECT 'Z000000000007', id FROM logins");
    exec(db.sql(), "INSERT INTO cards (id, login_id) SELECT 7, id FROM logins");
    for (const std::string refused : {"DELETE FROM cards", "DELETE FROM purses", "TRUNCATE cards",
                                      "TRUNCATE purses CASCADE", "DELETE FROM logins"}) {
        const auto state = outcome_of(db.url(), refused);
        BOOST_TEST(state.find("are never deleted") != std::string::npos, refused << ": " << state);
    }
    BOOST_TEST(count(db.sql(), "SELECT count(*) FROM cards") + count(db.sql(), "SELECT count(*) FROM purses") == 2);
    BOOST_TEST(count(db.sql(),
                     "SELECT count(*) FROM pg_constraint WHERE conrelid = 'topups'::regclass AND contype = 'f'") == 0);
}

BOOST_AUTO_TEST_CASE(maintenance_and_provisioning_do_their_job_and_no_more) {
    old_database old{15};
    std::ostringstream out;
    keeper::db::migrate(old.db.sql(), out);
    keeper::db::apply_roles(old.db.sql(), out);
    const auto provision = old.db.url_as("keeper_provision");
    BOOST_TEST(outcome_of(provision, "INSERT INTO logins (login, shared_secret) VALUES ('new', 's')") == "");
    for (const std::string refused : {"INSERT INTO audit_log (operation, result, request_id) VALUES ('X', 0, 'x')",
                                      "DELETE FROM logins", "SELECT * FROM audit_log", "CREATE TABLE t (x int)"}) {
        const auto state = outcome_of(provision, refused);
        BOOST_TEST(state == "refused", refused << ": " << state);
    }
    const auto maintain_url = old.db.url_as("keeper_maintain");
    for (const std::string refused :
         {"UPDATE logins SET shared_secret = 'x'", "SELECT * FROM logins", "DROP TABLE logins",
          "INSERT INTO sessions (session_hash, login_id, authenticated_at) VALUES (keeper_session_hash('s'), 1, "
          "now())"}) {
        const auto state = outcome_of(maintain_url, refused);
        BOOST_TEST(state == "refused", refused << ": " << state);
    }
    pqxx::connection as_maintain{maintain_url};
    BOOST_TEST(maintain(as_maintain, keeper::core::settings{}) == 0);  // partitions made and dropped as keeper_maintain
    BOOST_TEST(count(old.db.sql(), "SELECT count(*) FROM pg_class WHERE relname = '" +
                                       month_partition(old.db.sql(), "audit_log", -15) + "'") == 0);
    keeper::db::apply_roles(old.db.sql(), out);  // twice: changes nothing, fails on nothing
}

// The pool's connections (application_name "keeper-fcgi <pid> ...") are the worker role's, and no
// other; keeperctl's, which other tiers run beside this one, are its own roles'.
BOOST_AUTO_TEST_CASE(the_running_stack_serves_as_the_worker_role) {
    // A call that reaches the database, so every worker that answered holds its connection.
    const auto reply = keeper::test::http_get(keeper::test::stack_port(),
                                              "/AccountApi.asmx/CheckSessionEx?sessionId=roles-check&appId=x");
    BOOST_TEST(reply.status == 200);
    pqxx::connection c{keeper::test::stack_database_url()};
    const std::string pool =
        "SELECT count(*) FROM pg_stat_activity WHERE datname = 'keeper' AND backend_type = "
        "'client backend' AND application_name LIKE 'keeper-fcgi %'";
    BOOST_TEST(count(c, pool) > 0);
    BOOST_TEST(count(c, pool + " AND usename <> 'keeper_worker'") == 0);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(sealed_secrets_at_rest)

using keeper::db::secret_keyring;

BOOST_AUTO_TEST_CASE(keeperctls_secrets_are_sealed_and_the_store_opens_them) {
    fresh_database db{"sealed"};
    const auto keys = std::make_shared<const secret_keyring>(secret_keyring::parse(secret_keyring::new_key_line("k1")));
    keeper::db::add_login(db.sql(), "alice", "alice-secret-123", keys.get());
    keeper::db::add_app(db.sql(), "app1", "app-secret-456", "iOS", true, keys.get());
    const auto dump = text(db.sql(),
                           "SELECT string_agg(shared_secret, ' ') FROM (SELECT shared_secret FROM logins "
                           "UNION ALL SELECT shared_secret FROM applications) s");
    BOOST_TEST(dump.find("secret-") == std::string::npos, dump);  // a copy of the database holds no secret
    BOOST_TEST(count(db.sql(), "SELECT count(*) FROM logins WHERE starts_with(shared_secret, 'sealed:v1:k1:')") == 1);
    keeper::db::pg_store with_key{db.url(), 1, {}, std::make_shared<const keeper::db::key_file>(*keys)};
    BOOST_TEST(with_key.find_login_secret("alice", soon()).value() == "alice-secret-123");
    BOOST_TEST(with_key.find_application("app1", soon()).value().secret == "app-secret-456");
    keeper::db::pg_store without_key{db.url()};
    BOOST_CHECK_THROW(without_key.find_login_secret("alice", soon()),
                      keeper::core::store_error);  // a server fault, not a leak
    // A sealed value moved onto another row does not open there.
    exec(db.sql(),
         "INSERT INTO logins (login, shared_secret) SELECT 'mallory', shared_secret FROM logins WHERE login = 'alice'");
    BOOST_CHECK_THROW(with_key.find_login_secret("mallory", soon()), keeper::core::store_error);
}

BOOST_AUTO_TEST_CASE(rotate_key_reseals_clear_and_old_secrets_in_batches_and_forgets_the_old_key) {
    fresh_database db{"rotate"};
    const auto k1 = secret_keyring::new_key_line("k1");
    const auto k2 = secret_keyring::new_key_line("k2");
    const auto old_keys = secret_keyring::parse(k1);
    for (int i = 0; i < 7; ++i)
        keeper::db::add_login(db.sql(), "old" + std::to_string(i), "old-secret-" + std::to_string(i), &old_keys);
    exec(db.sql(), "INSERT INTO logins (login, shared_secret) VALUES ('clear', 'clear-secret')");  // as before 0005
    keeper::db::add_app(db.sql(), "app1", "app-secret", "iOS", true, &old_keys);
    const auto new_keys = secret_keyring::parse(k2 + "\n" + k1);
    std::ostringstream out;
    keeper::db::rotate_secrets(db.sql(), new_keys, 3, out);
    BOOST_TEST_MESSAGE(out.str());
    BOOST_TEST(count(db.sql(), "SELECT count(*) FROM logins WHERE NOT starts_with(shared_secret, 'sealed:v1:k2:')") ==
               0);
    BOOST_TEST(count(db.sql(),
                     "SELECT count(*) FROM applications WHERE NOT starts_with(shared_secret, 'sealed:v1:k2:')") == 0);
    BOOST_TEST(out.str().find("logins: 8 secret(s) sealed with key k2") != std::string::npos, out.str());
    BOOST_TEST(out.str().find("key k1 seals nothing now") != std::string::npos, out.str());
    BOOST_TEST(text(db.sql(), "SELECT string_agg(key_id, ' ') FROM secret_keys") == "k2");
    const auto only_k2 = std::make_shared<const keeper::db::key_file>(secret_keyring::parse(k2));
    keeper::db::pg_store store{db.url(), 1, {}, only_k2};
    BOOST_TEST(store.find_login_secret("old4", soon()).value() == "old-secret-4");
    BOOST_TEST(store.find_login_secret("clear", soon()).value() == "clear-secret");
    BOOST_TEST(store.find_application("app1", soon()).value().secret == "app-secret");
    std::ostringstream again;
    keeper::db::rotate_secrets(db.sql(), new_keys, 3, again);  // idempotent
    BOOST_TEST(again.str().find("logins: 0 secret(s)") != std::string::npos, again.str());
}

// Calls under way hold KEY SHARE locks on their logins (a session's or an audit row's foreign
// key): a rotation under load must reseal those logins too, not skip them and leave the old key in
// use. Here a session holds the lock for the whole rotation.
BOOST_AUTO_TEST_CASE(rotate_key_reseals_a_login_a_call_holds_by_its_foreign_key) {
    fresh_database db{"rotate_held"};
    const auto k1 = secret_keyring::new_key_line("k1");
    const auto k2 = secret_keyring::new_key_line("k2");
    const auto old_keys = secret_keyring::parse(k1);
    keeper::db::add_login(db.sql(), "held", "held-secret", &old_keys);
    pqxx::connection call{db.url()};
    pqxx::work holding{call};
    holding.exec("SELECT 1 FROM logins WHERE login = 'held' FOR KEY SHARE");
    std::ostringstream out;
    keeper::db::rotate_secrets(db.sql(), secret_keyring::parse(k2 + "\n" + k1), 10, out);
    BOOST_TEST(
        count(db.sql(), "SELECT count(*) FROM logins WHERE NOT starts_with(shared_secret, 'sealed:v1:k2:')") == 0,
        out.str());
    holding.commit();
}

// keeperctl add-login run with the key file as it was before a rotation, beside the rotation: a
// login it seals with the old key either commits before the rotation records the new key (and is
// re-sealed by it) or is refused. No login is left sealed with the old key.
BOOST_AUTO_TEST_CASE(a_rotation_leaves_no_secret_with_the_old_key_whatever_add_login_does_beside_it) {
    fresh_database db{"rotate_race"};
    const auto k1 = secret_keyring::new_key_line("k1");
    const auto k2 = secret_keyring::new_key_line("k2");
    // The key file as keeperctl reads it, then replaced before the rotation, as operations.md does.
    const auto file = std::filesystem::temp_directory_path() / ("keeper-rotate-race-" + std::to_string(::getpid()));
    std::ofstream{file} << k1 << "\n";
    const auto old_keys = secret_keyring::load(file.string());
    for (int i = 0; i < 20; ++i)
        keeper::db::add_login(db.sql(), "before" + std::to_string(i), "before-secret-0001", &old_keys);
    std::atomic<bool> rotated{false};
    std::atomic<int> added{0};
    int refused = 0;
    std::thread writer{[&] {
        pqxx::connection conn{db.url()};
        for (int i = 0, after = 0; after < 5; ++i) {
            if (rotated) ++after;
            try {
                keeper::db::add_login(conn, "during" + std::to_string(i), "during-secret-0001", &old_keys);
                ++added;
            } catch (const keeper::db::key_error&) {
                ++refused;
            }
        }
    }};
    // The rotation begins once add-login is under way (on a busy machine its thread starts late).
    for (int i = 0; i < 1000 && added == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds{5});
    std::ofstream{file} << k2 << "\n" << k1 << "\n";
    std::ostringstream out;
    keeper::db::rotate_secrets(db.sql(), secret_keyring::load(file.string()), 2, out);
    rotated = true;
    writer.join();
    std::filesystem::remove(file);
    BOOST_TEST_MESSAGE(out.str() << added.load() << " added beside the rotation, " << refused << " refused");
    BOOST_TEST(added > 0);
    BOOST_TEST(refused >= 5, "each add-login after the rotation is refused");
    BOOST_TEST(count(db.sql(), "SELECT count(*) FROM logins WHERE NOT starts_with(shared_secret, 'sealed:v1:k2:')") ==
               0);
}

BOOST_AUTO_TEST_CASE(the_start_up_check_refuses_a_missing_or_different_key) {
    fresh_database db{"keycheck"};
    const auto k1 = secret_keyring::new_key_line("k1");
    const auto keys = secret_keyring::parse(k1);
    keeper::db::add_login(db.sql(), "alice", "s", &keys);
    BOOST_CHECK_NO_THROW(keeper::db::check_database_keys(db.sql(), keys));
    const auto expect = [&](const secret_keyring& ring, const std::string& words) {
        try {
            keeper::db::check_database_keys(db.sql(), ring);
            BOOST_ERROR("accepted: " << words);
        } catch (const keeper::db::key_error& e) {
            BOOST_TEST(std::string{e.what()}.find(words) != std::string::npos, e.what());
        }
    };
    expect(secret_keyring::parse(secret_keyring::new_key_line("k9")),
           "sealed with key k1, which the key file lacks: 1 in logins (alice)");
    expect(secret_keyring::parse(secret_keyring::new_key_line("k1")), "key k1 of the key file is not the key");
}

// The way out of a lost key file: every secret sealed with the lost key gets a new one, then
// forget-key lets go of the key's check row, and the start-up check passes with the new file.
BOOST_AUTO_TEST_CASE(a_lost_key_is_forgotten_once_nothing_is_sealed_with_it) {
    fresh_database db{"lostkey"};
    const auto lost = secret_keyring::parse(secret_keyring::new_key_line("k1"));
    keeper::db::add_login(db.sql(), "alice", "a1", &lost);
    keeper::db::add_login(db.sql(), "bob", "b1", &lost);
    keeper::db::add_app(db.sql(), "app1", "p1", "iOS", true, &lost);
    const auto found = secret_keyring::parse(secret_keyring::new_key_line(secret_keyring::new_key_id()));
    const auto refused = [&](const std::string& words) {
        std::ostringstream out;
        try {
            keeper::db::forget_lost_keys(db.sql(), found, out);
            BOOST_ERROR("forgot a key that still seals " << words);
        } catch (const keeper::db::key_error& e) {
            BOOST_TEST(std::string{e.what()}.find(words) != std::string::npos, e.what());
        }
    };
    refused("key k1: 2 in logins (alice, bob); 1 in applications (app1)");
    keeper::db::add_login(db.sql(), "alice", "a2", &found);
    keeper::db::add_login(db.sql(), "bob", "b2", &found);
    refused("key k1: 1 in applications (app1)");
    BOOST_CHECK_THROW(keeper::db::check_database_keys(db.sql(), found), keeper::db::key_error);
    keeper::db::add_app(db.sql(), "app1", "p2", "iOS", true, &found);
    try {
        keeper::db::check_database_keys(db.sql(), found);
        BOOST_ERROR("the start-up check passed with k1 still listed");
    } catch (const keeper::db::key_error& e) {
        BOOST_TEST(
            std::string{e.what()}.find("nothing is sealed with it any more: keeperctl forget-key") != std::string::npos,
            e.what());
    }
    std::ostringstream out;
    BOOST_TEST(keeper::db::forget_lost_keys(db.sql(), found, out) == 1);
    BOOST_TEST(out.str().find("key k1 forgotten") != std::string::npos, out.str());
    BOOST_CHECK_NO_THROW(keeper::db::check_database_keys(db.sql(), found));
    BOOST_TEST(text(db.sql(), "SELECT string_agg(key_id, ' ') FROM secret_keys") == found.current_id());
    std::ostringstream again;
    BOOST_TEST(keeper::db::forget_lost_keys(db.sql(), found, again) == 0);  // nothing more to forget
    keeper::db::pg_store store{db.url(), 1, {}, std::make_shared<const keeper::db::key_file>(found)};
    BOOST_TEST(store.find_login_secret("bob", soon()).value() == "b2");
}

BOOST_AUTO_TEST_SUITE_END()
