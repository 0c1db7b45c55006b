// PushApi: device subscriptions and push SMS delivery (docs/api.md).
#include "core/domain/auth_hash.hpp"
#include "core/domain/formats.hpp"
#include "core/api/text_util.hpp"
#include "core/domain/operations/handlers.hpp"

namespace keeper::core::handlers {

store_result subscribe_with_tag_and_locale(call_context& ctx, const std::string& session_id, provider push_provider,
                                           const std::string& push_service_user_id, std::int32_t tag,
                                           std::int32_t locale) {
    if (!formats::is_session_id(session_id) || push_provider == provider::Undefined ||
        !formats::is_push_user_id(push_service_user_id) || !formats::is_locale(locale)) {
        return result_code::invalid_argument;
    }
    const auto session_key = to_lower_ascii(session_id);
    return ctx.db().subscribe_device(ctx.frame(), ctx.session(session_key),
                                     {push_provider, push_service_user_id, tag, locale});
}

store_result subscribe_app_with_tag_and_locale(call_context& ctx, const std::string& app_id, const std::string& user_id,
                                               const std::string& push_service_user_id, std::int32_t tag,
                                               std::int32_t locale, const std::string& auth_hash) {
    if (!formats::is_app_id(app_id) || !formats::is_user_id(user_id) ||
        !formats::is_push_user_id(push_service_user_id) || !formats::is_locale(locale) ||
        !formats::is_auth_hash(auth_hash)) {
        return result_code::invalid_argument;
    }
    const auto app_key = to_lower_utf8(app_id);
    const auto user_key = to_lower_utf8(user_id);
    auto& db = ctx.db();
    const auto app = db.find_application(app_key, ctx.until());
    // An unknown or disabled application has no secret to guess: 4, counted for nobody (the
    // caller's rate is nginx's; docs/api-decisions.md, "Sessions and applications").
    if (!app || !app->enabled) return db.audit_only(ctx.frame(), {}, app_key, result_code::auth_failed);
    const bool proven = auth_hash_proves(app_key, app->secret, user_key, auth_hash);
    // keeperctl refuses to register an application without a provider; one made by SQL cannot push.
    if (proven && app->push_provider == provider::Undefined) {
        return db.audit_only(ctx.frame(), {}, app_key, result_code::invalid_argument);
    }
    // A wrong hash goes to the database too: the guard counts it there for (application, userId)
    // (11 once it has too many, whatever the hash).
    const auto& cfg = ctx.config();
    const device_subscription device{app->push_provider, push_service_user_id, tag, locale};
    return db.subscribe_app_device(ctx.frame(), app_key, user_key, device, proven,
                                   {cfg.app_auth_failure_window, cfg.app_auth_max_failures});
}

store_result mark_push_sms_as_delivered(call_context& ctx, const std::string& session_id, std::int32_t id) {
    if (!formats::is_session_id(session_id) || !formats::is_positive_id(id)) return result_code::invalid_argument;
    const auto session_key = to_lower_ascii(session_id);
    return ctx.db().mark_sms_delivered(ctx.frame(), ctx.session(session_key), id);
}

}  // namespace keeper::core::handlers
