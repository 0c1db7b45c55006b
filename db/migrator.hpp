#pragma once
// Forward-only schema migrations: each pending file, with its row (version, name, checksum) in
// schema_migrations, applied in one transaction, the whole run under an advisory lock so two
// migrators never interleave. An applied file that was edited afterwards stops the run.
#include <ostream>
#include <pqxx/pqxx>
#include <stdexcept>
#include <string>
#include <vector>

namespace keeper::db {

class migration_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct migration {
    int version = 0;
    std::string name;      // "sessions" for 0001_sessions.sql
    std::string sql;
    std::string checksum;  // SHA-256 of the file, hex
};

struct migration_state {
    migration file;
    bool applied = false;
    std::string applied_at;  // empty when pending
};

// The migrations this build carries, in version order.
const std::vector<migration>& known_migrations();
int expected_schema_version();

// Applies what is pending; returns how many were applied. Reports each to out.
int migrate(pqxx::connection_base& conn, std::ostream& out);
std::vector<migration_state> migration_status(pqxx::connection_base& conn);
// Highest applied version, 0 for an empty database.
int current_schema_version(pqxx::connection_base& conn);

}  // namespace keeper::db
