// AccountApi: permits, code-protected transfers, top-ups (SPEC.md §5). CheckSessionEx is with
// the other session operations.
#include "../formats.hpp"
#include "../money.hpp"
#include "code_confirmation.hpp"
#include "handlers.hpp"
#include "session_resolver.hpp"

namespace keeper::core::handlers {

result_code set_contact_permits_ex(call_context& ctx, const std::string& session_id, const std::string& wmid,
                                   bool accept_payments, bool accept_invoices, bool accept_messages,
                                   bool dont_use_confirmation) {
    if (!formats::is_session_id(session_id) || !formats::is_wmid(wmid)) return result_code::invalid_argument;
    const auto session = resolve_session(ctx, session_id);
    if (session.code != result_code::ok) return session.code;
    ctx.tx().set_contact_permits(session.login_id, wmid, accept_payments, accept_invoices, accept_messages,
                                 dont_use_confirmation);
    return result_code::ok;
}

result_code set_account_permits(call_context& ctx, const std::string& session_id, bool accept_payments,
                                bool accept_invoices, bool accept_messages) {
    if (!formats::is_session_id(session_id)) return result_code::invalid_argument;
    const auto session = resolve_session(ctx, session_id);
    if (session.code != result_code::ok) return session.code;
    ctx.tx().set_account_permits(session.login_id, accept_payments, accept_invoices, accept_messages);
    return result_code::ok;
}

result_code finish_code_protected_operation(call_context& ctx, const std::string& session_id, std::int64_t tran_id,
                                            const std::string& protection_code) {
    if (!formats::is_session_id(session_id) || !formats::is_positive_id(tran_id) || !formats::is_code(protection_code)) {
        return result_code::invalid_argument;
    }
    const auto session = resolve_session(ctx, session_id);
    if (session.code != result_code::ok) return session.code;
    auto& tx = ctx.tx();
    return confirm_code(tx.find_transfer_for_update(tran_id, session.login_id), protection_code,
                        ctx.config().code_max_attempts, [&] { tx.complete_transfer(tran_id); },
                        [&](bool lock) { tx.record_transfer_failure(tran_id, lock); });
}

result_code topup_purse_from_atm_card(call_context& ctx, const std::string& session_id, const std::string& purse_dest,
                                      std::int64_t card_id, double amount) {
    const auto purse = formats::normalize_purse(purse_dest);
    const auto amount_decimal = amount_text(amount);
    if (!formats::is_session_id(session_id) || !purse || !formats::is_positive_id(card_id) || !amount_decimal) {
        return result_code::invalid_argument;
    }
    const auto session = resolve_session(ctx, session_id);
    if (session.code != result_code::ok) return session.code;
    auto& tx = ctx.tx();
    const auto card = tx.find_card_for_update(card_id, session.login_id);
    // A blocked card answers like one that does not exist (SPEC.md §5).
    if (!tx.purse_belongs_to(*purse, session.login_id) || !card || card->blocked) return result_code::not_found;
    const auto& cfg = ctx.config();
    if (cents(*amount_decimal) > cents(cfg.topup_max_amount)) return result_code::limit_exceeded;
    const auto& limit = card->daily_limit.empty() ? cfg.card_daily_limit : card->daily_limit;
    if (tx.exceeds_daily_limit(card_id, *amount_decimal, limit)) return result_code::limit_exceeded;
    tx.record_topup(card_id, *purse, *amount_decimal, ctx.request_id());
    return result_code::ok;
}

}  // namespace keeper::core::handlers
