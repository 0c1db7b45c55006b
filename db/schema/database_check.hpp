#pragma once
// What the database says of this build before keeper-fcgi serves it, before a reload replaces its
// workers, and on --check-config: the schema version, the keys it was sealed with, whether the
// workers' connections keep their session, and what commits are promised (docs/operations.md,
// "Restart, reload, upgrade").
#include <string>

#include "db/secrets/sealed_secrets.hpp"

namespace keeper::db {

// The key file at key_path; throws std::runtime_error naming the file and what is wrong with it.
secret_keyring open_key_file(const std::string& key_path);

struct database_check {
    bool reachable = false;
    int found_version = 0;
    int needed_version = 0;
    std::string refused;  // the database's error when it answered but refused the check
    // What the workers' commits are promised under the workers' role's settings, when less than
    // docs/design.md's "No acknowledgement before replication" needs; empty when it holds.
    std::string durability_warning;
    bool schema_matches() const { return !reachable || (refused.empty() && found_version == needed_version); }
    // "database schema is version N, this keeper needs M (...what to do)".
    std::string schema_problem() const;
};

// Connects as the workers do (conninfo: their connection string). Throws std::runtime_error when the schema matches and
// the key file cannot open what the database holds. An unreachable database is not an error here (reachable false):
// wait_for_schema waits it out, and --check-config says it was not checked.
database_check check_database(const std::string& conninfo, const std::string& key_path);

}  // namespace keeper::db
