#include "call_runner.hpp"

namespace keeper::core {
namespace {

int audit_result(const result_value& value) {
    const auto* code = std::get_if<result_code>(&value);
    return code ? static_cast<int>(*code) : 0;
}

}  // namespace

result_value run_call(const decoded_call& call, store& st, const settings& cfg, const std::string& request_id) {
    call_context ctx{st, cfg, request_id};
    auto value = call.op->invoke(ctx, call.args);
    if (ctx.has_transaction()) {
        ctx.tx().write_audit({ctx.audit_login(), ctx.audit_app(), std::string{call.op->name}, audit_result(value), request_id});
        ctx.tx().commit();
    }
    return value;
}

}  // namespace keeper::core
