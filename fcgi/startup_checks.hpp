#pragma once
// What keeper-fcgi checks before it serves, before a reload replaces its workers, and on
// --check-config: the configuration file, the key file, and (when the database answers) the
// schema version and the keys the database was sealed with. docs/operations.md, "Restart,
// reload, upgrade".
#include <string>

#include "core/api/settings.hpp"
#include "listen_sockets.hpp"

namespace keeper::fcgi {

// The configuration with its key file read; throws std::runtime_error naming what is wrong (an
// unknown key, a bad value, an unreadable or malformed key file).
core::settings load_checked_settings(const std::string& config_path);

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

// Connects as the workers do. Throws std::runtime_error when the schema matches and the key file
// cannot open what the database holds. An unreachable database is not an error here (reachable
// false): wait_for_schema waits it out, and --check-config says it was not checked.
database_check check_database(const core::settings& cfg);

// What a reload (and --check-config) checks: load_checked_settings and check_database, with a
// schema other than the one this build needs refused too (new workers would fail every call).
struct checked_configuration {
    core::settings settings;
    database_check database;
};
checked_configuration check_for_reload(const std::string& config_path);

// The configuration once it loads (load_checked_settings). While the file or its key file is wrong,
// as after a typo and a restart, every request on sockets is answered at once, "not applied"
// (answer_while_waiting.hpp), the log says what is wrong, and the file is read again every 2 s: the pool
// never exits for it, so systemd never restarts it into the start limit that would fail
// keeper.socket with it.
core::settings wait_for_configuration(const std::string& config_path, listen_sockets sockets);

// Waits while the database cannot be checked (unreachable: down at boot, no primary yet), its
// schema is not the one this build needs (a migration still to run, as during an upgrade) or the
// database refuses the workers' role (its grants still to come),
// saying so in the log once a minute, instead of exiting: an exit would
// have systemd restart the pool until its start limit fails keeper.socket with it. Meanwhile every
// request on sockets is answered at once, "not applied" (answer_while_waiting.hpp).
void wait_for_schema(const core::settings& cfg, listen_sockets sockets);

}  // namespace keeper::fcgi
