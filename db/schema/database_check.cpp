#include "db/schema/database_check.hpp"

#include <pqxx/pqxx>
#include <stdexcept>
#include <string>

#include "core/api/text_util.hpp"
#include "db/schema/migrator.hpp"
#include "db/secrets/secret_rotation.hpp"

namespace keeper::db {
namespace {

std::runtime_error key_problem(const std::string& key_path, const key_error& e) {
    return std::runtime_error("secret_key_file (" + key_path + "): " + e.what());
}

// Whether a session set on one transaction is there for the next: not so behind a pooler in
// transaction mode (PgBouncer pool_mode=transaction), which hands each transaction whichever
// server connection is free. keeper needs its session: the timeouts and application_name it sets,
// the statements it prepares, and the server process it records to settle an in-doubt call
// (docs/scaling.md, "Capacity"). The probe pins one server connection in a
// transaction on `holder`, marks `probe`'s session, frees the pinned one last, and asks again: a
// transaction pooler serves that question from the connection freed last, which lacks the mark.
// Then it asks a few times more: a pooler that hands out the connection idle longest instead
// (PgBouncer's server_round_robin = 1) goes round its connections, the unmarked ones among them.
bool session_kept(const std::string& conninfo) {
    pqxx::connection holder{conninfo};
    pqxx::connection probe{conninfo};
    {
        pqxx::work pinned{holder};
        pinned.exec("SELECT 1");
        // A setting of keeper's own: a pooler carries a few standard ones over (application_name
        // among them), never this.
        pqxx::nontransaction{probe}.exec("SET keeper.session_probe = 'kept'");
        pinned.commit();
    }
    for (int ask = 0; ask < 5; ++ask) {
        const auto r = pqxx::nontransaction{probe}.exec1("SELECT current_setting('keeper.session_probe', true)");
        if (r[0].is_null() || r[0].as<std::string>() != "kept") return false;
    }
    return true;
}

// synchronous_commit as the workers' role has it, against the promise that an acknowledged write
// survives PostgreSQL's crash and, with a synchronous standby named, a failover. A warning, not a
// refusal: a database without a standby, or a test cluster, may choose less on purpose.
std::string durability_warning(pqxx::connection& conn) {
    pqxx::nontransaction tx{conn};
    const auto commit = tx.exec1("SELECT current_setting('synchronous_commit')")[0].as<std::string>();
    const auto standbys = tx.exec1("SELECT current_setting('synchronous_standby_names')")[0].as<std::string>();
    if (commit == "off") {
        return "synchronous_commit is off for the workers' role: an acknowledged write can be lost when PostgreSQL "
               "crashes (docs/design.md, \"No acknowledgement before replication\")";
    }
    if (commit == "local" && !standbys.empty()) {
        return "synchronous_commit is local while synchronous_standby_names is set: commits do not wait for the "
               "standby, and an acknowledged write can be lost in a failover (docs/design.md, \"No acknowledgement "
               "before replication\")";
    }
    return {};
}

}  // namespace

secret_keyring open_key_file(const std::string& key_path) {
    try {
        return secret_keyring::load(key_path);
    } catch (const key_error& e) {
        throw key_problem(key_path, e);
    }
}

std::string database_check::schema_problem() const {
    if (!refused.empty())
        return "the database refuses the workers' role: " + refused + " (keeper-migrate.service grants it)";
    const std::string versions = "database schema is version " + std::to_string(found_version) +
                                 ", this keeper needs " + std::to_string(needed_version);
    if (found_version < needed_version) return versions + " (run keeperctl migrate: systemctl start keeper-migrate)";
    return versions + " (the database was migrated by a newer keeper: install that version again)";
}

database_check check_database(const std::string& conninfo, const std::string& key_path) {
    const auto keys = open_key_file(key_path);
    database_check out;
    out.needed_version = expected_schema_version();
    try {
        pqxx::connection conn{conninfo};
        out.reachable = true;
        if (!session_kept(conninfo)) {
            throw std::runtime_error(
                "database_url: the workers' connections lose their session between transactions, as behind a "
                "pooler in transaction mode; keeper needs session pooling (PgBouncer pool_mode=session; "
                "docs/scaling.md, \"Capacity\")");
        }
        out.durability_warning = durability_warning(conn);
        out.found_version = current_schema_version(conn);
        if (out.found_version == out.needed_version) check_database_keys(conn, keys);
    } catch (const pqxx::broken_connection&) {
        out.reachable = false;
    } catch (const pqxx::sql_error& e) {
        // Reached, but refused (a role without its grants yet, as before keeper-migrate.service
        // ran `keeperctl roles`): what the pool waits out, saying so.
        out.reachable = true;
        out.refused = std::string{core::first_line(e.what())};
    } catch (const key_error& e) {
        throw key_problem(key_path, e);
    }
    return out;
}

}  // namespace keeper::db
