// TelepayApi: scheduler task confirmation and profile renaming (docs/api.md).
#include "core/domain/code_hash.hpp"
#include "core/domain/formats.hpp"
#include "core/api/text_util.hpp"
#include "core/domain/operations/handlers.hpp"

namespace keeper::core::handlers {

store_result telepay_scheduler_confirm_create(call_context& ctx, const std::string& session_id, std::int32_t profile_id,
                                              std::int32_t task_id, const std::string& code) {
    if (!formats::is_session_id(session_id) || !formats::is_positive_id(profile_id) ||
        !formats::is_positive_id(task_id) || !formats::is_code(code)) {
        return result_code::invalid_argument;
    }
    const auto session_key = to_lower_ascii(session_id);
    const auto found = ctx.db().find_task_code(ctx.frame(), ctx.session(session_key), profile_id, task_id);
    if (found.result != result_code::ok) return {found.result, found.replayed};
    const coded_call call{found.login_id, code_matches(found.code_hash, code), ctx.config().code_max_attempts};
    return ctx.db().confirm_task(ctx.frame(), call, profile_id, task_id);
}

store_result rename_telepay_profile(call_context& ctx, const std::string& session_id, std::int32_t id,
                                    const std::string& name) {
    const auto trimmed = formats::normalize_profile_name(name);
    if (!formats::is_session_id(session_id) || !formats::is_positive_id(id) || !trimmed) {
        return result_code::invalid_argument;
    }
    const auto session_key = to_lower_ascii(session_id);
    return ctx.db().rename_profile(ctx.frame(), ctx.session(session_key), id, *trimmed);
}

}  // namespace keeper::core::handlers
