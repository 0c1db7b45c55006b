// Authenticate and CheckSessionEx (docs/api.md, sessions and authentication).
#include "core/domain/auth_hash.hpp"
#include "core/domain/formats.hpp"
#include "core/api/text_util.hpp"
#include "core/domain/operations/handlers.hpp"

namespace keeper::core::handlers {

store_result authenticate(call_context& ctx, const std::string& session_id, const std::string& login,
                          const std::string& auth_hash) {
    if (!formats::is_session_id(session_id) || !formats::is_login(login) || !formats::is_auth_hash(auth_hash)) {
        return result_code::invalid_argument;
    }
    const auto login_key = to_lower_utf8(login);
    const auto session_key = to_lower_ascii(session_id);
    auto& db = ctx.db();
    // The hash is checked here, in constant time, against the secret read first; the store then
    // counts the throttle under the login's row lock and answers 11 whatever the hash said.
    const bool proven =
        auth_hash_proves(login_key, db.find_login_secret(login_key, ctx.until()), session_key, auth_hash);
    const auto& cfg = ctx.config();
    return db.authenticate(ctx.frame(), login_key, session_key, proven, cfg.auth_failure_window, cfg.auth_max_failures);
}

store_result check_session_ex(call_context& ctx, const std::string& session_id, const std::string& app_id) {
    if (!formats::is_session_id(session_id) || !formats::is_app_id(app_id)) return result_code::invalid_argument;
    const auto session_key = to_lower_ascii(session_id);
    return ctx.db().check_session(ctx.frame(), ctx.session(session_key), to_lower_utf8(app_id));
}

}  // namespace keeper::core::handlers
