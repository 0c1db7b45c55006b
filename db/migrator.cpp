#include "migrator.hpp"

#include <openssl/evp.h>

#include "core/api/text_util.hpp"

#include <array>
#include <map>

#include "embedded_migrations.hpp"

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

std::string sha256_hex(std::string_view data) {
    std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
    unsigned int length = 0;
    EVP_Digest(data.data(), data.size(), digest.data(), &length, EVP_sha256(), nullptr);
    return core::lower_hex(digest.data(), length);
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
    if (row.checksum != m.checksum) {
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

void apply(pqxx::connection_base& conn, const migration& m) {
    pqxx::work tx{conn};
    tx.exec(m.sql);
    tx.exec_params("INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)", m.version, m.name,
                   m.checksum);
    tx.commit();
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
            out.push_back({std::stoi(stem.substr(0, 4)), stem.substr(5), std::string{src.sql}, sha256_hex(src.sql)});
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
        tx.commit();
    }
    const auto applied = applied_migrations(conn);
    check_not_newer(applied);
    int count = 0;
    for (const auto& m : known_migrations()) {
        if (up_to > 0 && m.version > up_to) break;
        const auto it = applied.find(m.version);
        if (it != applied.end()) {
            check_unchanged(m, it->second);
            continue;
        }
        apply(conn, m);
        out << "applied " << m.version << "_" << m.name << "\n";
        ++count;
    }
    return count;
}

std::vector<migration_state> migration_status(pqxx::connection_base& conn) {
    const auto applied = applied_migrations(conn);
    std::vector<migration_state> out;
    for (const auto& m : known_migrations()) {
        const auto it = applied.find(m.version);
        if (it != applied.end()) check_unchanged(m, it->second);
        out.push_back({m, it != applied.end(), it != applied.end() ? it->second.applied_at : std::string{}});
    }
    check_not_newer(applied);
    return out;
}

int current_schema_version(pqxx::connection_base& conn) {
    const auto applied = applied_migrations(conn);
    return applied.empty() ? 0 : applied.rbegin()->first;
}

}  // namespace keeper::db
