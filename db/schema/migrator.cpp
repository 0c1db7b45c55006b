#include "db/schema/migrator.hpp"

#include <map>
#include <regex>

#include "db/schema/definitions.hpp"
#include "db/schema/embedded_sql.hpp"
#include "db/schema/partition_indexes.hpp"

namespace keeper::db {
namespace {

// Any constant will do; it only has to be the same for every keeperctl.
constexpr long long migration_lock_key = 0x6b656570'65720001LL;

constexpr const char* create_table_sql = R"(
CREATE TABLE IF NOT EXISTS schema_migrations (
    version    integer     PRIMARY KEY,
    name       text        NOT NULL,
    checksum   text        NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE schema_migrations IS 'Applied files of db/migrations, one row each, written in the same transaction as the file.';
COMMENT ON COLUMN schema_migrations.version IS 'The NNNN of NNNN_name.sql.';
COMMENT ON COLUMN schema_migrations.name IS 'The name part of NNNN_name.sql.';
COMMENT ON COLUMN schema_migrations.checksum IS 'SHA-256 of the file as applied; keeperctl refuses to go on if the file has changed since.';
COMMENT ON COLUMN schema_migrations.applied_at IS 'When the file was applied.';
)";

// The "-- supersedes sha256:<hex>" lines of a migration's text.
std::vector<std::string> superseded_checksums(const std::string& sql) {
    static const std::regex line{R"(^-- supersedes sha256:([0-9a-f]{64})\s*$)", std::regex::multiline};
    std::vector<std::string> out;
    for (std::sregex_iterator it{sql.begin(), sql.end(), line}, end; it != end; ++it) out.push_back((*it)[1].str());
    return out;
}

bool is_superseded(const migration& m, const std::string& checksum) {
    for (const auto& c : m.supersedes) {
        if (c == checksum) return true;
    }
    return false;
}

struct applied_row {
    std::string checksum;
    std::string applied_at;
};

std::map<int, applied_row> applied_migrations(pqxx::connection_base& conn) {
    pqxx::work tx{conn};
    std::map<int, applied_row> out;
    const auto exists = tx.exec1("SELECT to_regclass('schema_migrations') IS NOT NULL")[0].as<bool>();
    if (!exists) return out;
    for (const auto& row : tx.exec("SELECT version, checksum, applied_at::text FROM schema_migrations")) {
        out[row[0].as<int>()] = {row[1].as<std::string>(), row[2].as<std::string>()};
    }
    return out;
}

void check_unchanged(const migration& m, const applied_row& row) {
    if (row.checksum != m.checksum && !is_superseded(m, row.checksum)) {
        throw migration_error("migration " + std::to_string(m.version) + "_" + m.name +
                              " was changed after it was applied (checksum differs); add a new migration instead");
    }
}

void check_not_newer(const std::map<int, applied_row>& applied) {
    if (!applied.empty() && applied.rbegin()->first > expected_schema_version()) {
        throw migration_error("the database has schema version " + std::to_string(applied.rbegin()->first) +
                              ", newer than this keeper knows (" + std::to_string(expected_schema_version()) + ")");
    }
}

void apply(pqxx::transaction_base& tx, const migration& m) {
    tx.exec(m.sql);
    tx.exec_params("INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)", m.version, m.name,
                   m.checksum);
}

// What a run that reaches the newest migration does last, in the transaction of the last migration
// it applies: applied files recorded under a text they supersede get this text's checksum, and the
// changed files of db/functions/ are applied.
void finish(pqxx::transaction_base& tx, const std::map<int, applied_row>& applied, std::ostream& out) {
    for (const auto& m : known_migrations()) {
        const auto it = applied.find(m.version);
        if (it == applied.end() || it->second.checksum == m.checksum) continue;
        tx.exec_params("UPDATE schema_migrations SET checksum = $1 WHERE version = $2", m.checksum, m.version);
        out << "recorded " << m.version << "_" << m.name << " as its current text (it supersedes the applied one)\n";
    }
    apply_changed_definitions(tx, out);
}

// Holds the session-level advisory lock for the lifetime of the object.
class migration_lock {
public:
    explicit migration_lock(pqxx::connection_base& conn) : m_conn(conn) {
        pqxx::nontransaction{m_conn}.exec_params("SELECT pg_advisory_lock($1)", migration_lock_key);
    }
    ~migration_lock() {
        try {
            pqxx::nontransaction{m_conn}.exec_params("SELECT pg_advisory_unlock($1)", migration_lock_key);
        } catch (...) {
            // The lock dies with the connection anyway.
        }
    }
    migration_lock(const migration_lock&) = delete;
    migration_lock& operator=(const migration_lock&) = delete;

private:
    pqxx::connection_base& m_conn;
};

}  // namespace

const std::vector<migration>& known_migrations() {
    static const std::vector<migration> all = [] {
        std::vector<migration> out;
        for (const auto& src : embedded_migrations()) {
            const std::string stem{src.file_stem};
            const std::string sql{src.sql};
            out.push_back(
                {std::stoi(stem.substr(0, 4)), stem.substr(5), sql, sql_checksum(sql), superseded_checksums(sql)});
        }
        return out;
    }();
    return all;
}

int expected_schema_version() { return known_migrations().empty() ? 0 : known_migrations().back().version; }

int migrate(pqxx::connection_base& conn, std::ostream& out, int up_to) {
    migration_lock lock{conn};
    {
        pqxx::work tx{conn};
        tx.exec(create_table_sql);
        create_definitions_table(tx);
        tx.commit();
    }
    const auto applied = applied_migrations(conn);
    check_not_newer(applied);
    std::vector<const migration*> pending;
    for (const auto& m : known_migrations()) {
        if (up_to > 0 && m.version > up_to) break;
        const auto it = applied.find(m.version);
        if (it != applied.end()) {
            check_unchanged(m, it->second);
        } else {
            pending.push_back(&m);
        }
    }
    const bool to_newest = up_to == 0 || up_to >= expected_schema_version();
    if (pending.empty() && to_newest) {
        pqxx::work tx{conn};
        finish(tx, applied, out);
        tx.commit();
    }
    for (const auto* m : pending) {
        pqxx::work tx{conn};
        apply(tx, *m);
        if (m == pending.back() && to_newest) finish(tx, applied, out);
        tx.commit();
        out << "applied " << m->version << "_" << m->name << "\n";
        // Outside the migration's transaction, so that writes go on meanwhile; before the next
        // migration, which may rely on the index or retire the one it replaces.
        build_partition_indexes(conn, out);
    }
    return static_cast<int>(pending.size());
}

std::vector<migration_state> migration_status(pqxx::connection_base& conn) {
    const auto applied = applied_migrations(conn);
    std::vector<migration_state> out;
    for (const auto& m : known_migrations()) {
        const auto it = applied.find(m.version);
        if (it == applied.end()) {
            out.push_back({m, false, false, {}});
            continue;
        }
        check_unchanged(m, it->second);
        out.push_back({m, true, it->second.checksum != m.checksum, it->second.applied_at});
    }
    check_not_newer(applied);
    return out;
}

int current_schema_version(pqxx::connection_base& conn) {
    const auto applied = applied_migrations(conn);
    return applied.empty() ? 0 : applied.rbegin()->first;
}

}  // namespace keeper::db
