// AccountApi: permits, code-protected transfers, top-ups (docs/api.md). CheckSessionEx is with
// the other session operations. Formats are checked here; rules that need rows run in the store.
#include "core/domain/code_hash.hpp"
#include "core/domain/formats.hpp"
#include "core/domain/money.hpp"
#include "core/api/text_util.hpp"
#include "core/domain/operations/handlers.hpp"

namespace keeper::core::handlers {

store_result set_contact_permits_ex(call_context& ctx, const std::string& session_id, const std::string& wmid,
                                    bool accept_payments, bool accept_invoices, bool accept_messages,
                                    bool dont_use_confirmation) {
    if (!formats::is_session_id(session_id) || !formats::is_wmid(wmid)) return result_code::invalid_argument;
    const auto session_key = to_lower_ascii(session_id);
    return ctx.db().set_contact_permits(ctx.frame(), ctx.session(session_key), wmid, accept_payments, accept_invoices,
                                        accept_messages, dont_use_confirmation);
}

store_result set_account_permits(call_context& ctx, const std::string& session_id, bool accept_payments,
                                 bool accept_invoices, bool accept_messages) {
    if (!formats::is_session_id(session_id)) return result_code::invalid_argument;
    const auto session_key = to_lower_ascii(session_id);
    return ctx.db().set_account_permits(ctx.frame(), ctx.session(session_key), accept_payments, accept_invoices,
                                        accept_messages);
}

store_result finish_code_protected_operation(call_context& ctx, const std::string& session_id, std::int64_t tran_id,
                                             const std::string& protection_code) {
    if (!formats::is_session_id(session_id) || !formats::is_positive_id(tran_id) ||
        !formats::is_code(protection_code)) {
        return result_code::invalid_argument;
    }
    const auto session_key = to_lower_ascii(session_id);
    const auto found = ctx.db().find_transfer_code(ctx.frame(), ctx.session(session_key), tran_id);
    if (found.result != result_code::ok) return {found.result, found.replayed};
    const coded_call call{found.login_id, code_matches(found.code_hash, protection_code),
                          ctx.config().code_max_attempts};
    return ctx.db().confirm_transfer(ctx.frame(), call, tran_id);
}

store_result topup_purse_from_atm_card(call_context& ctx, const std::string& session_id, const std::string& purse_dest,
                                       std::int64_t card_id, double amount) {
    const auto purse = formats::normalize_purse(purse_dest);
    const auto amount_decimal = amount_text(amount);
    if (!formats::is_session_id(session_id) || !purse || !formats::is_positive_id(card_id) || !amount_decimal) {
        return result_code::invalid_argument;
    }
    const auto session_key = to_lower_ascii(session_id);
    const auto& cfg = ctx.config();
    return ctx.db().topup(ctx.frame(), ctx.session(session_key),
                          {*purse, card_id, *amount_decimal, cfg.topup_max_amount, cfg.card_daily_limit});
}

}  // namespace keeper::core::handlers
