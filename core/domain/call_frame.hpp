#pragma once
// A call as every layer below the router sees it: built once per call, by call_frame::of below,
// passed by reference to the operation (call_context), to the store and to the database, where it
// is the keeper_call value every write's function begins with (db/functions/keeper_claim.sql,
// keeper_audit.sql). A new field is a member here with its value in of(), an attribute of
// keeper_call (a migration) and its binding in statements.hpp (docs/design.md, "The call's frame").
#include <string>
#include <string_view>
#include <utility>

#include "core/api/decoded_call.hpp"
#include "core/api/http_message.hpp"
#include "core/api/settings.hpp"
#include "core/domain/call_fingerprint.hpp"
#include "core/domain/deadline.hpp"
#include "core/domain/idempotency_key.hpp"
#include "core/domain/trace_context.hpp"

namespace keeper::core {

struct call_frame {
    // nginx's request id (nginx/keeper-request-id.conf): names the call in the audit row, the
    // log and /call-outcome.
    std::string request_id{};
    // The operation's name in the operation table (static storage).
    std::string_view operation{};
    // The caller's Idempotency-Key (docs/api-decisions.md, "Idempotency-Key"), '' without one;
    // with one, the fingerprint of the call's meaning (core/domain/call_fingerprint.hpp).
    std::string idempotency_key{};
    std::string fingerprint{};
    // nginx sent this request before, on a connection that broke: the store settles that attempt
    // first and answers its recorded result if it had one (docs/design.md, "In-doubt calls").
    bool retried = false;
    // When the call must be answered by (docs/design.md, "One deadline per call"): every wait in
    // the store ends there, and the database refuses an attempt that begins after it.
    deadline until;
    // The W3C trace the call belongs to (32 hex digits; '' none): the database names the call's
    // server process by it and records a client's in the audit row.
    std::string trace_id{};

    // The frame of a decoded request: the one place a call's fields are read from the request.
    static call_frame of(const http_request& req, const decoded_call& call, const settings& cfg) {
        call_frame frame{.request_id = req.request_id,
                         .operation = call.op->name,
                         .retried = req.retried,
                         .until = call_deadline(req, cfg.call_budget),
                         .trace_id = request_trace_id(req)};
        // Only a write takes a key: a read is safe to repeat, so its header is not even read.
        if (call.op->effect != call_effect::writes) return frame;
        if (auto key = read_idempotency_key(req.idempotency_key)) {
            frame.idempotency_key = std::move(*key);
            frame.fingerprint = call_fingerprint(call);
        }
        return frame;
    }
};

}  // namespace keeper::core
