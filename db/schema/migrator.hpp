#pragma once
// Forward-only schema migrations: each pending file, with its row (version, name, checksum) in
// schema_migrations, applied in one transaction, the whole run under an advisory lock so two
// migrators never interleave. An applied file that was edited afterwards stops the run, unless the
// file names the earlier text's checksum on a "-- supersedes sha256:<hex>" line: then the new
// text's checksum is recorded in its place (a file whose functions moved to db/functions/).
// A run that reaches the newest migration also applies the changed files of db/functions/
// (definitions.hpp), in the transaction of the last migration it applied. After each migration it
// builds the partitions' shares of any index the migration declared ON ONLY a partitioned table
// (partition_indexes.hpp).
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
    std::string name;  // "sessions" for 0001_sessions.sql
    std::string sql;
    std::string checksum;                 // SHA-256 of the file, hex
    std::vector<std::string> supersedes;  // checksums of earlier texts this one stands for
};

struct migration_state {
    migration file;
    bool applied = false;
    bool earlier_text = false;  // applied as a text this file supersedes; migrate records this one
    std::string applied_at;     // empty when pending
};

// The migrations this build carries, in version order.
const std::vector<migration>& known_migrations();
int expected_schema_version();

// Applies what is pending (up to and including version up_to, when given); returns how many were
// applied. Reports each to out. Tests stop early to build a database as an older keeper left it
// (no functions: those come with the newest migration).
int migrate(pqxx::connection_base& conn, std::ostream& out, int up_to = 0);
std::vector<migration_state> migration_status(pqxx::connection_base& conn);
// Highest applied version, 0 for an empty database.
int current_schema_version(pqxx::connection_base& conn);

}  // namespace keeper::db
