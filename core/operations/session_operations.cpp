// Authenticate and CheckSessionEx (SPEC.md §4).
#include "../auth_hash.hpp"
#include "../formats.hpp"
#include "../text_util.hpp"
#include "handlers.hpp"
#include "session_resolver.hpp"

namespace keeper::core::handlers {

result_code authenticate(call_context& ctx, const std::string& session_id, const std::string& login,
                         const std::string& auth_hash) {
    if (!formats::is_session_id(session_id) || !formats::is_login(login) || !formats::is_auth_hash(auth_hash)) {
        return result_code::invalid_argument;
    }
    const auto login_key = to_lower_utf8(login);
    const auto session_key = to_lower_ascii(session_id);
    ctx.set_audit_login(login_key);
    auto& tx = ctx.tx();
    const auto account = tx.find_login_for_update(login_key);
    const auto& cfg = ctx.config();
    // Throttled logins are refused before the hash is looked at (SPEC.md §4).
    if (tx.count_auth_failures(login_key, cfg.auth_failure_window) >= cfg.auth_max_failures) {
        return result_code::too_many_attempts;
    }
    const auto secret = account ? std::optional{account->secret} : std::nullopt;
    const bool proven = auth_hash_proves(login_key, secret, session_key, auth_hash);
    // A session bound to another login is not rebound: same answer as a wrong hash.
    if (!proven || !tx.bind_session(session_key, account->id)) {
        tx.record_auth_failure(login_key, cfg.auth_failure_window);
        return result_code::auth_failed;
    }
    // Decision (docs/api-decisions.md): a success forgives earlier failures of this login.
    tx.clear_auth_failures(login_key);
    return result_code::ok;
}

result_code check_session_ex(call_context& ctx, const std::string& session_id, const std::string& app_id) {
    if (!formats::is_session_id(session_id) || !formats::is_app_id(app_id)) return result_code::invalid_argument;
    const auto session = resolve_session(ctx, session_id);
    if (session.code != result_code::ok) return session.code;
    const auto app_key = to_lower_utf8(app_id);
    ctx.set_audit_app(app_key);
    const auto app = ctx.tx().find_application(app_key);
    if (!app || !app->enabled) return result_code::unknown_application;
    return result_code::ok;
}

}  // namespace keeper::core::handlers
