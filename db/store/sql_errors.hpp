#pragma once
// What a failed statement means for its call, typed once from libpqxx's exception class and the
// server's SQLSTATE (never from a message's text, which is translated and quotes values). The
// call executor (call_executor.hpp) acts on the type: run again, settle, replay, or answer.
// Messages name the statement and the SQLSTATE, never a value, so nothing from a request (a
// secret, a code) can reach the log through them.
#include <pqxx/except>

#include <optional>
#include <string>
#include <string_view>

#include "core/api/result_code.hpp"
#include "core/domain/store.hpp"
#include "db/store/database_gauges.hpp"
#include "db/store/backend_identity.hpp"

namespace keeper::db {

// Nothing reached the database, or nothing was done there: no host answered as the primary, or a
// standby refused the statement (SQLSTATE 25006, read-only: the primary moved). The call may run
// again on a new connection to whichever host is primary by then.
struct not_done : core::store_error {
    using core::store_error::store_error;
};

// The connection broke while the statement was on its way, running or committing: the call may
// have committed. backend names the server process that ran it (as the connection's setup read it).
struct in_doubt : core::store_error {
    in_doubt(const std::string& what, backend_identity backend_process)
        : core::store_error(what), backend(std::move(backend_process)) {}
    backend_identity backend;
};

// A unique index refused a row (SQLSTATE 23505). On a keyed call's first attempt it is most often
// the key index: the caller made a call with this key before (db/functions/keeper_audit.sql).
// The executor then runs the call again with key_used, which reads the recorded key; had another
// index refused the row, that run meets it again and fails as a store error. Its transaction
// changed nothing.
struct unique_violation : core::store_error {
    explicit unique_violation(const std::string& what) : core::store_error(what) {}
};

// A call recorded before: a keyed call's repeat (SQLSTATE KI2nn, db/functions/keeper_idempotency.sql),
// or another attempt of the same call, by request id, found its audit row (KC2nn,
// db/functions/keeper_claim.sql). Its transaction changed nothing; the recorded call answered
// `result`.
struct replay : core::store_error {
    replay(core::result_code recorded, bool by_key)
        : core::store_error(by_key ? "a repeat of a keyed call" : "a call recorded before"),
          result(recorded),
          keyed(by_key) {}
    core::result_code result;
    bool keyed;  // by its Idempotency-Key (an answer that says Idempotent-Replayed)
};

// The statement waited lock_timeout_ms for a lock (SQLSTATE 55P03) and was rolled back.
struct lock_timed_out : core::not_applied {
    explicit lock_timed_out(const std::string& what) : core::not_applied(what) {}
};

// A look at a call by /call-outcome decided it as not applied before this attempt committed
// (SQLSTATE KD002, db/functions/keeper_claim.sql): rolled back, and no attempt of it ever commits.
struct decided_not_applied : core::not_applied {
    explicit decided_not_applied(const std::string& what) : core::not_applied(what) {}
};

// A statement that commits what its answer rests on answered, but its commit's wait for the
// synchronous standby was cut (its cancel point or deadline): committed on the primary alone.
struct standby_wait_cut : core::store_error {
    standby_wait_cut() : core::store_error("its commit was cut before the synchronous standby had it") {}
};

// How a failure leaves the connection it happened on.
enum class connection_after { usable, broken };

// Throws the typed error for a libpqxx failure during `what` on a connection whose server process
// is `backend`; says through `after` whether the connection can serve another call (set before
// it throws). Counts lock and statement timeouts in gauges (may be null).
[[noreturn]] void throw_typed(const pqxx::failure& e, std::string_view what, const backend_identity& backend,
                              connection_after& after, database_gauges* gauges);

// The recorded result a replay's SQLSTATE carries in its last two digits (KI200 to KI212, KC200 to
// KC212).
std::optional<core::result_code> replayed_result(std::string_view sqlstate);

}  // namespace keeper::db
