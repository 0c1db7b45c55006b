#pragma once
// What a session is found by in the database: the SHA-256 of its id (lower case, as the
// operations pass it), which sessions.session_hash holds (db/functions/keeper_session_hash.sql
// computes the same digest for a DBA). The worker computes it, so the id, a bearer credential,
// reaches no statement, log or pg_stat_activity row of the database, and the database spends
// nothing on the digest (bench/history.md, "The session's hash in the worker").
#include <string>
#include <string_view>

namespace keeper::db {

// The digest as a bytea parameter's text: \x and 64 hex digits.
std::string session_key(std::string_view session_id);

}  // namespace keeper::db
