#include "session_resolver.hpp"

#include "../text_util.hpp"

namespace keeper::core {

resolved_session resolve_session(call_context& ctx, const std::string& session_id) {
    const auto found = ctx.tx().find_session(to_lower_ascii(session_id), ctx.config().session_ttl);
    switch (found.status) {
        case session_status::not_found: return {result_code::session_not_found, 0, {}};
        case session_status::expired:
            ctx.set_audit_login(found.login);
            return {result_code::session_expired, found.login_id, found.login};
        case session_status::valid: break;
    }
    ctx.set_audit_login(found.login);
    return {result_code::ok, found.login_id, found.login};
}

}  // namespace keeper::core
