// TelepayApi: scheduler task confirmation and profile renaming (SPEC.md §5).
#include "../formats.hpp"
#include "code_confirmation.hpp"
#include "handlers.hpp"
#include "session_resolver.hpp"

namespace keeper::core::handlers {

result_code telepay_scheduler_confirm_create(call_context& ctx, const std::string& session_id, std::int32_t profile_id,
                                             std::int32_t task_id, const std::string& code) {
    if (!formats::is_session_id(session_id) || !formats::is_positive_id(profile_id) ||
        !formats::is_positive_id(task_id) || !formats::is_code(code)) {
        return result_code::invalid_argument;
    }
    const auto session = resolve_session(ctx, session_id);
    if (session.code != result_code::ok) return session.code;
    auto& tx = ctx.tx();
    return confirm_code(tx.find_task_for_update(profile_id, task_id, session.login_id), code,
                        ctx.config().code_max_attempts, [&] { tx.activate_task(profile_id, task_id); },
                        [&](bool lock) { tx.record_task_failure(profile_id, task_id, lock); });
}

result_code rename_telepay_profile(call_context& ctx, const std::string& session_id, std::int32_t id,
                                   const std::string& name) {
    const auto trimmed = formats::normalize_profile_name(name);
    if (!formats::is_session_id(session_id) || !formats::is_positive_id(id) || !trimmed) {
        return result_code::invalid_argument;
    }
    const auto session = resolve_session(ctx, session_id);
    if (session.code != result_code::ok) return session.code;
    return ctx.tx().rename_profile(id, session.login_id, *trimmed) ? result_code::ok : result_code::not_found;
}

}  // namespace keeper::core::handlers
