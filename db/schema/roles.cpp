#include "db/schema/roles.hpp"

namespace keeper::db {
namespace {

// The partitioned history. keeper_maintain owns it with every partition: PostgreSQL lets only a
// table's owner create, attach, detach and drop its partitions, which is pg_partman's whole job.
constexpr std::string_view history_tables[] = {"audit_log", "topups"};

std::string join_names(pqxx::transaction_base& tx) {
    std::string out;
    for (const auto& r : role_specs()) out += (out.empty() ? "" : ", ") + tx.quote_name(std::string{r.name});
    return out;
}

std::string create_role(std::string_view name) {
    const std::string n{name};
    return "DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '" + n + "') THEN CREATE ROLE " + n +
           " LOGIN; END IF; END $$";
}

// ALTER TABLE ... OWNER does not reach a partitioned table's partitions, nor pg_partman's
// template tables: every one of them is handed over. All of them are locked first, in one
// statement: changed one at a time, a table's new owner is a catalog row this transaction holds,
// and autovacuum's ANALYZE of that table waits for it while holding the next table this
// transaction needs (a deadlock, seen on a live database). Waiting on a lock before changing
// anything, this transaction holds nothing autovacuum wants, and autovacuum yields its lock.
std::string hand_over_history(const std::string& schema_literal) {
    std::string parents;
    for (const auto t : history_tables) parents += (parents.empty() ? "'" : ", '") + std::string{t} + "'";
    return "DO $$ DECLARE t regclass; tables regclass[]; BEGIN\n"
           "  tables := ARRAY(SELECT c.oid::regclass FROM pg_class c WHERE c.relnamespace = " +
           schema_literal + "::regnamespace AND c.relname IN (" + parents +
           ")\n"
           "           UNION ALL SELECT i.inhrelid::regclass FROM pg_inherits i JOIN pg_class p ON p.oid = "
           "i.inhparent\n"
           "            WHERE p.relnamespace = " +
           schema_literal + "::regnamespace AND p.relname IN (" + parents +
           ")\n"
           "           UNION ALL SELECT to_regclass(template_table) FROM partman.part_config\n"
           "            WHERE parent_table IN (SELECT " +
           schema_literal + " || '.' || unnest(ARRAY[" + parents +
           "]))\n"
           "              AND to_regclass(template_table) IS NOT NULL);\n"
           "  IF cardinality(tables) > 0 THEN\n"
           "    EXECUTE 'LOCK TABLE ' || array_to_string(tables::text[], ', ') || ' IN ACCESS EXCLUSIVE MODE';\n"
           "  END IF;\n"
           "  FOREACH t IN ARRAY tables LOOP EXECUTE format('ALTER TABLE %s OWNER TO " +
           std::string{maintain_role} +
           "', t); END LOOP;\n"
           "END $$";
}

}  // namespace

const std::vector<role_spec>& role_specs() {
    static const std::vector<role_spec> all{
        {worker_role,
         "keeper-fcgi: runs the operations (the keeper_* functions) and nothing else",
         {{"schema_migrations", "SELECT"},
          {"secret_keys", "SELECT"},
          {"logins", "SELECT"},
          {"applications", "SELECT"},
          {"sessions", "SELECT, INSERT, UPDATE"},
          {"auth_failures", "SELECT, INSERT, DELETE"},
          {"app_auth_failures", "SELECT, INSERT, DELETE"},
          {"audit_log", "INSERT"},
          {"account_permits", "SELECT, INSERT, UPDATE"},
          {"contact_permits", "SELECT, INSERT, UPDATE"},
          {"protected_transfers", "SELECT, UPDATE"},
          {"purses", "SELECT, UPDATE"},
          {"cards", "SELECT"},
          {"topups", "SELECT, INSERT"},
          {"card_recent_topups", "SELECT, INSERT"},
          {"idempotency_keys", "SELECT, INSERT"},
          {"telepay_profiles", "SELECT, UPDATE"},
          {"telepay_tasks", "SELECT, UPDATE"},
          {"push_subscriptions", "SELECT, INSERT, UPDATE"},
          {"app_push_subscriptions", "SELECT, INSERT, UPDATE"},
          {"push_sms", "SELECT, UPDATE"},
          {"retried_calls", "SELECT, INSERT"},
          {"decided_calls", "SELECT"}}},
        {maintain_role,
         "keeperctl maintain: owns the partitioned history (audit_log, topups) and purges sessions, auth_failures, "
         "app_auth_failures and old Idempotency-Keys",
         {{"sessions", "SELECT, DELETE"},
          {"auth_failures", "SELECT, DELETE"},
          {"app_auth_failures", "SELECT, DELETE"},
          {"card_recent_topups", "SELECT, DELETE"},
          {"retried_calls", "SELECT, DELETE"},
          {"decided_calls", "SELECT, DELETE"},
          {"idempotency_keys", "SELECT, DELETE"}}},
        {provision_role,
         "keeperctl add-* and list: what other parts of the payment system create",
         {{"secret_keys", "SELECT, INSERT"},
          {"logins", "SELECT, INSERT, UPDATE"},
          {"applications", "SELECT, INSERT, UPDATE"},
          {"purses", "SELECT, INSERT"},
          {"cards", "SELECT, INSERT"},
          {"protected_transfers", "SELECT, INSERT"},
          {"telepay_profiles", "SELECT, INSERT"},
          {"telepay_tasks", "SELECT, INSERT"},
          {"push_sms", "SELECT, INSERT"}}},
    };
    return all;
}

std::vector<std::string> roles_sql(pqxx::connection_base& conn) {
    pqxx::read_transaction tx{conn};
    const auto names = tx.exec1("SELECT current_database(), current_schema()");
    const auto database = tx.quote_name(names[0].as<std::string>());
    const auto schema = tx.quote_name(names[1].as<std::string>());
    const auto schema_literal = tx.quote(names[1].as<std::string>());
    const auto all = join_names(tx);
    const std::string maintain{maintain_role}, worker{worker_role}, provision{provision_role};

    std::vector<std::string> sql;
    for (const auto& r : role_specs()) sql.push_back(create_role(r.name));
    // Temporary tables are DDL too: only maintenance (pg_partman moves rows through one) keeps them.
    sql.push_back("REVOKE TEMPORARY ON DATABASE " + database + " FROM PUBLIC");
    sql.push_back("GRANT CONNECT ON DATABASE " + database + " TO " + all);
    sql.push_back("GRANT TEMPORARY ON DATABASE " + database + " TO " + maintain);
    sql.push_back("GRANT USAGE ON SCHEMA " + schema + " TO " + all);
    sql.push_back("GRANT CREATE ON SCHEMA " + schema + " TO " + maintain);
    // Start from nothing, so a privilege dropped from role_specs() is taken away on the next run.
    sql.push_back("REVOKE ALL ON ALL TABLES IN SCHEMA " + schema + " FROM " + worker + ", " + provision);
    sql.push_back("REVOKE ALL ON ALL SEQUENCES IN SCHEMA " + schema + " FROM " + all);
    // CREATE: a table's new owner must be able to create in its schema (pg_partman's templates).
    sql.push_back("GRANT USAGE, CREATE ON SCHEMA partman TO " + maintain);
    sql.push_back(hand_over_history(schema_literal));
    for (const auto& r : role_specs()) {
        for (const auto& g : r.grants) {
            sql.push_back("GRANT " + std::string{g.privileges} + " ON " + schema + "." +
                          tx.quote_name(std::string{g.table}) + " TO " + std::string{r.name});
        }
    }
    // The functions that read history for the workers: a call's own outcome by request id.
    sql.push_back("GRANT EXECUTE ON FUNCTION " + schema + ".keeper_call_outcome(text) TO " + worker);
    // A caller's look at one of its own calls (GET /call-outcome), by its session, which decides it.
    sql.push_back("GRANT EXECUTE ON FUNCTION " + schema +
                  ".keeper_decide_call(bytea, integer, text, timestamptz, timestamptz, boolean) TO " + worker);
    // Recording a keyed call and recognising its repeat (it runs with the worker's own rights).
    sql.push_back("GRANT EXECUTE ON FUNCTION " + schema + ".keeper_idempotency(keeper_call, text, text, integer) TO " +
                  worker);
    sql.push_back("GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA partman TO " + maintain);
    sql.push_back("GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA partman TO " + maintain);
    sql.push_back("GRANT EXECUTE ON ALL PROCEDURES IN SCHEMA partman TO " + maintain);
    // The schema owner keeps the right to alter the history in later migrations. Granted once:
    // granting it again needs the admin option, which a DBA's grant does not give.
    sql.push_back(
        "DO $$ BEGIN IF NOT (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) "
        "AND NOT pg_has_role(current_user, '" +
        maintain +
        "', 'MEMBER') THEN "
        "EXECUTE format('GRANT " +
        maintain + " TO %I', current_user); END IF; END $$");
    return sql;
}

void apply_roles(pqxx::connection_base& conn, std::ostream& out) {
    const auto sql = roles_sql(conn);
    pqxx::work tx{conn};
    for (const auto& statement : sql) tx.exec(statement);
    tx.commit();
    for (const auto& r : role_specs()) {
        out << r.name << ": ";
        for (std::size_t i = 0; i < r.grants.size(); ++i) {
            out << (i ? "; " : "") << r.grants[i].table << " " << r.grants[i].privileges;
        }
        out << (r.name == maintain_role ? "; owns audit_log, topups and their partitions" : "") << "\n";
    }
}

}  // namespace keeper::db
