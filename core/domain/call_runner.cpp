#include "core/domain/call_runner.hpp"

#include "core/domain/call_fingerprint.hpp"

namespace keeper::core {

call_result run_call(const decoded_call& call, store& st, const settings& cfg, const call_origin& origin) {
    // Its budget spent before a worker took it (nginx may have answered it already): nothing runs.
    // A retried call's first attempt may have run, so it goes on to be settled by the store.
    if (origin.until.passed() && !origin.retried) throw not_applied("its deadline passed before a worker took it");
    call_key key;
    if (origin.idempotency_key && call.op->effect == call_effect::writes) {
        key = {*origin.idempotency_key, call_fingerprint(call)};
    }
    call_context ctx{st, cfg, origin.request_id, call.op->name, std::move(key), origin.retried, origin.until,
                     origin.trace_id, origin.client_addr};
    return call.op->invoke(ctx, call.args);
}

}  // namespace keeper::core
