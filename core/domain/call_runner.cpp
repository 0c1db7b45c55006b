#include "core/domain/call_runner.hpp"

namespace keeper::core {

result_value run_call(const decoded_call& call, store& st, const settings& cfg, const std::string& request_id) {
    call_context ctx{st, cfg, request_id, call.op->name};
    return call.op->invoke(ctx, call.args);
}

}  // namespace keeper::core
