#pragma once
// What keeper-fcgi checks before it serves, before a reload replaces its workers, and on
// --check-config: the configuration file, the key file, and (when the database answers) what
// db/schema/database_check.hpp checks; and the waits while either is not ready.
// docs/operations.md, "Restart, reload, upgrade".
#include <string>

#include "core/api/settings.hpp"
#include "db/schema/database_check.hpp"
#include "fcgi/listen_sockets.hpp"

namespace keeper::pool {

// The configuration with its key file read; throws std::runtime_error naming what is wrong (an
// unknown key, a bad value, an unreadable or malformed key file).
core::settings load_checked_settings(const std::string& config_path);

// The database as the workers connect to it, checked (db/schema/database_check.hpp).
db::database_check check_database(const core::settings& cfg);

// What a reload (and --check-config) checks: load_checked_settings and check_database, with a
// schema other than the one this build needs refused too (new workers would fail every call).
struct checked_configuration {
    core::settings settings;
    db::database_check database;
};
checked_configuration check_for_reload(const std::string& config_path);

// The configuration once it loads (load_checked_settings). While the file or its key file is wrong,
// as after a typo and a restart, every request on sockets is answered at once, "not applied"
// (answer_while_waiting.hpp), the log says what is wrong, and the file is read again every 2 s: the pool
// never exits for it, so systemd never restarts it into the start limit that would fail
// keeper.socket with it.
core::settings wait_for_configuration(const std::string& config_path, fcgi::listen_sockets sockets);

// Waits while the database cannot be checked (unreachable: down at boot, no primary yet), its
// schema is not the one this build needs (a migration still to run, as during an upgrade) or the
// database refuses the workers' role (its grants still to come),
// saying so in the log once a minute, instead of exiting: an exit would
// have systemd restart the pool until its start limit fails keeper.socket with it. Meanwhile every
// request on sockets is answered at once, "not applied" (answer_while_waiting.hpp).
void wait_for_schema(const core::settings& cfg, fcgi::listen_sockets sockets);

}  // namespace keeper::pool
