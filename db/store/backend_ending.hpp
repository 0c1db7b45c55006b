#pragma once
// Making sure an earlier attempt of a call can no longer commit (docs/design.md, "In-doubt calls"):
// by ending the PostgreSQL server process that ran it and waiting until it is gone. Then its
// transaction has committed or never will, and the call's audit row says which.
#include <pqxx/pqxx>
#include <string>

#include "core/domain/deadline.hpp"
#include "db/store/backend_identity.hpp"

namespace keeper::db {

// The application_name every connection of this worker process carries:
// "keeper-fcgi <pid>.<start>@<host>~<boot>", within PostgreSQL's 63 bytes (the host name cut to
// fit): the pid with the process's start (a reused pid has another) and the first 12 hex digits
// of the host's boot id (hosts cloned from one image, or sharing a name, have others). It names
// the process in pg_stat_activity for people, and a retry finds by it the server processes that
// a dead worker of this host left (end_left_by_dead_workers).
const std::string& worker_application_name();
// The name the process with this pid on this host gives (or gave) its connections.
std::string worker_application_name_of(long pid);
// Whether a connection so named was opened by a worker process of this host, on this boot, that
// is no longer running (the same pid with another start is another process).
bool left_by_dead_worker(std::string_view application_name);

// Ends the server process `backend` (as a connection's setup read it) if it still runs on this
// server, and waits until it is gone; false at the deadline. On another server (after a failover)
// it names no process: only the promoted synchronous standby takes writes.
bool end_backend(pqxx::connection& conn, const backend_identity& backend, const core::deadline& until);

// For a request nginx sent again (its first connection broke, the worker dead or alive, on this host
// or another), before anything else: lists the call in retried_calls, committed, so that every
// attempt that takes the call's claim from then on looks for the call's audit row
// (db/functions/keeper_claim.sql).
void list_as_retried(pqxx::connection& conn, std::string_view request_id);
// Then: ends the server process that holds the call's claim, if any, and waits until it is gone;
// false at the deadline. An attempt that has not taken the claim yet takes it later, finds the
// call listed, and so finds whatever the retry recorded.
bool end_claim_holder(pqxx::connection& conn, std::string_view request_id, const core::deadline& until);
// And: ends every server process a dead worker of this host left, and waits until they are gone;
// false at the deadline. A first attempt its host vouched for holds no claim, and the host's record
// of it is gone with a pool that stopped whole (call_record.hpp); its server process may still
// run its statement, named for its dead worker.
bool end_left_by_dead_workers(pqxx::connection& conn, const core::deadline& until);

}  // namespace keeper::db
