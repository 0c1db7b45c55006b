// PushApi: device subscriptions and push SMS delivery (SPEC.md §5).
#include "../auth_hash.hpp"
#include "../formats.hpp"
#include "../text_util.hpp"
#include "handlers.hpp"
#include "session_resolver.hpp"

namespace keeper::core::handlers {

result_code subscribe_with_tag_and_locale(call_context& ctx, const std::string& session_id, provider push_provider,
                                          const std::string& push_service_user_id, std::int32_t tag, std::int32_t locale) {
    if (!formats::is_session_id(session_id) || push_provider == provider::Undefined ||
        !formats::is_push_user_id(push_service_user_id) || !formats::is_locale(locale)) {
        return result_code::invalid_argument;
    }
    const auto session = resolve_session(ctx, session_id);
    if (session.code != result_code::ok) return session.code;
    ctx.tx().subscribe_device({push_provider, push_service_user_id}, session.login_id, tag, locale);
    return result_code::ok;
}

result_code subscribe_app_with_tag_and_locale(call_context& ctx, const std::string& app_id, const std::string& user_id,
                                              const std::string& push_service_user_id, std::int32_t tag,
                                              std::int32_t locale, const std::string& auth_hash) {
    if (!formats::is_app_id(app_id) || !formats::is_user_id(user_id) || !formats::is_push_user_id(push_service_user_id) ||
        !formats::is_locale(locale) || !formats::is_auth_hash(auth_hash)) {
        return result_code::invalid_argument;
    }
    const auto app_key = to_lower_utf8(app_id);
    const auto user_key = to_lower_utf8(user_id);
    ctx.set_audit_app(app_key);
    auto& tx = ctx.tx();
    const auto app = tx.find_application(app_key);
    const auto secret = app && app->enabled ? std::optional{app->secret} : std::nullopt;
    if (!auth_hash_proves(app_key, secret, user_key, auth_hash)) return result_code::auth_failed;
    // keeperctl refuses to register an application without a provider; one made by SQL cannot push.
    if (app->push_provider == provider::Undefined) return result_code::invalid_argument;
    tx.subscribe_app_device({app->push_provider, push_service_user_id}, app_key, user_key, tag, locale);
    return result_code::ok;
}

result_code mark_push_sms_as_delivered(call_context& ctx, const std::string& session_id, std::int32_t id) {
    if (!formats::is_session_id(session_id) || !formats::is_positive_id(id)) return result_code::invalid_argument;
    const auto session = resolve_session(ctx, session_id);
    if (session.code != result_code::ok) return session.code;
    return ctx.tx().mark_sms_delivered(id, session.login_id) ? result_code::ok : result_code::not_found;
}

}  // namespace keeper::core::handlers
