#pragma once
// Operation handlers: typed arguments in, a result out. They never see XML, query strings or
// HTTP; the operation table (operation_table.cpp) names them and their wire parameters.
#include <cstdint>
#include <string>

#include "core/domain/call_context.hpp"
#include "core/api/date_time.hpp"
#include "core/api/provider.hpp"
#include "core/api/result_code.hpp"

namespace keeper::core::handlers {

// SimpleAuthApi / AccountApi: sessions (session_operations.cpp)
store_result authenticate(call_context& ctx, const std::string& session_id, const std::string& login,
                          const std::string& auth_hash);
store_result check_session_ex(call_context& ctx, const std::string& session_id, const std::string& app_id);

// AccountApi (account_operations.cpp)
store_result set_contact_permits_ex(call_context& ctx, const std::string& session_id, const std::string& wmid,
                                    bool accept_payments, bool accept_invoices, bool accept_messages,
                                    bool dont_use_confirmation);
store_result set_account_permits(call_context& ctx, const std::string& session_id, bool accept_payments,
                                 bool accept_invoices, bool accept_messages);
store_result finish_code_protected_operation(call_context& ctx, const std::string& session_id, std::int64_t tran_id,
                                             const std::string& protection_code);
store_result topup_purse_from_atm_card(call_context& ctx, const std::string& session_id, const std::string& purse_dest,
                                       std::int64_t card_id, double amount);

// TelepayApi (telepay_operations.cpp)
store_result telepay_scheduler_confirm_create(call_context& ctx, const std::string& session_id, std::int32_t profile_id,
                                              std::int32_t task_id, const std::string& code);
store_result rename_telepay_profile(call_context& ctx, const std::string& session_id, std::int32_t id,
                                    const std::string& name);

// PushApi (push_operations.cpp)
store_result subscribe_with_tag_and_locale(call_context& ctx, const std::string& session_id, provider push_provider,
                                           const std::string& push_service_user_id, std::int32_t tag,
                                           std::int32_t locale);
store_result subscribe_app_with_tag_and_locale(call_context& ctx, const std::string& app_id, const std::string& user_id,
                                               const std::string& push_service_user_id, std::int32_t tag,
                                               std::int32_t locale, const std::string& auth_hash);
store_result mark_push_sms_as_delivered(call_context& ctx, const std::string& session_id, std::int32_t id);

// GlobalApi / ErrorsApi: no database (info_operations.cpp)
utc_time get_utc_now(call_context& ctx);
std::string get_error_desc(call_context& ctx, std::int32_t error_code, std::int32_t culture_code);

}  // namespace keeper::core::handlers
