#include "core/domain/call_runner.hpp"

#include "core/domain/call_fingerprint.hpp"

namespace keeper::core {

call_result run_call(const decoded_call& call, store& st, const settings& cfg, const std::string& request_id,
                     const std::optional<std::string>& idempotency_key, bool retried) {
    call_key key;
    if (idempotency_key && call.op->effect == call_effect::writes) {
        key = {*idempotency_key, call_fingerprint(call), legacy_call_fingerprint(call)};
    }
    call_context ctx{st, cfg, request_id, call.op->name, std::move(key), retried};
    try {
        return {call.op->invoke(ctx, call.args), false};
    } catch (const call_replayed& replay) {
        return {replay.result(), true};
    }
}

}  // namespace keeper::core
