#include "core/domain/call_runner.hpp"

namespace keeper::core {

call_result run_call(const decoded_call& call, store& st, const settings& cfg, const call_frame& frame) {
    // Its budget spent before a worker took it (nginx may have answered it already): nothing runs.
    // A retried call's first attempt may have run, so it goes on to be settled by the store.
    if (frame.until.passed() && !frame.retried) throw not_applied("its deadline passed before a worker took it");
    call_context ctx{st, cfg, frame};
    return call.op->invoke(ctx, call.args);
}

}  // namespace keeper::core
