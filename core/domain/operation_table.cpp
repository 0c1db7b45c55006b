#include "core/domain/operation_table.hpp"

#include <array>

#include "core/api/enum_names.hpp"
#include "core/domain/operations/handlers.hpp"

namespace keeper::core {
namespace {

constexpr std::array<api_group, 6> groups{api_group::account, api_group::telepay, api_group::simple_auth,
                                          api_group::push,    api_group::global,  api_group::errors};

std::vector<operation> build_table() {
    using g = api_group;
    using r = result_code;
    namespace h = handlers;
    constexpr auto reads = call_effect::reads, writes = call_effect::writes;
    // The results every operation with a session shares come first in each list.
    constexpr auto ok = r::ok, invalid = r::invalid_argument, no_session = r::session_not_found,
                   expired_session = r::session_expired;
    return {
        make_operation<&h::set_contact_permits_ex>(
            g::account, "SetContactPermitsEx", writes,
            {"sessionId", "wmid", "acceptPayments", "acceptInvoices", "acceptMessages", "dontUseConfirmation"},
            {ok, invalid, no_session, expired_session},
            "Sets what one contact (WMID) may send the user: payments, invoices, messages; and whether payments need "
            "confirmation."),
        make_operation<&h::set_account_permits>(
            g::account, "SetAccountPermits", writes,
            {"sessionId", "acceptPayments", "acceptInvoices", "acceptMessages"},
            {ok, invalid, no_session, expired_session},
            "Sets whether anyone may send the user payments, invoices and messages."),
        make_operation<&h::finish_code_protected_operation>(
            g::account, "FinishCodeProtectedOperation", writes, {"sessionId", "tranId", "protectionCode"},
            {ok, invalid, no_session, expired_session, r::not_found, r::wrong_code, r::attempts_exceeded,
             r::already_completed, r::expired},
            "Completes a code-protected transfer addressed to the user with its protection code."),
        make_operation<&h::topup_purse_from_atm_card>(
            g::account, "TopupPurseFromAtmCard", writes, {"sessionId", "purseDest", "cardId", "amount"},
            {ok, invalid, no_session, expired_session, r::not_found, r::limit_exceeded},
            "Tops up one of the user's purses from one of the user's bank cards."),
        make_operation<&h::check_session_ex>(
            g::account, "CheckSessionEx", reads, {"sessionId", "appId"},
            {ok, invalid, no_session, expired_session, r::unknown_application},
            "Tells whether a session is valid and the application registered and enabled."),
        make_operation<&h::telepay_scheduler_confirm_create>(
            g::telepay, "TelepaySchedulerConfirmCreate", writes, {"sessionId", "profileId", "taskId", "code"},
            {ok, invalid, no_session, expired_session, r::not_found, r::wrong_code, r::attempts_exceeded,
             r::already_completed, r::expired},
            "Activates a pending scheduled payment of the user's telepay profile with its confirmation code."),
        make_operation<&h::rename_telepay_profile>(
            g::telepay, "RenameTelepayProfile", writes, {"sessionId", "id", "name"},
            {ok, invalid, no_session, expired_session, r::not_found}, "Renames one of the user's telepay profiles."),
        make_operation<&h::authenticate>(g::simple_auth, "Authenticate", writes, {"sessionId", "login", "authHash"},
                                         {ok, invalid, r::auth_failed, r::too_many_attempts},
                                         "Binds a client-chosen session id to a login, proven by authHash."),
        make_operation<&h::subscribe_with_tag_and_locale>(
            g::push, "SubscribeWithTagAndLocale", writes,
            {"sessionId", "provider", "pushServiceUserId", "tag", "locale"}, {ok, invalid, no_session, expired_session},
            "Registers the user's device for push notifications."),
        make_operation<&h::subscribe_app_with_tag_and_locale>(
            g::push, "SubscribeAppWithTagAndLocale", writes,
            {"appId", "userId", "pushServiceUserId", "tag", "locale", "authHash"},
            {ok, invalid, r::auth_failed, r::too_many_attempts},
            "Registers a device for push on behalf of an application's user, proven by authHash."),
        make_operation<&h::mark_push_sms_as_delivered>(g::push, "MarkPushSmsAsDelivered", writes, {"sessionId", "id"},
                                                       {ok, invalid, no_session, expired_session, r::not_found},
                                                       "Records that a push SMS reached the user."),
        make_operation<&h::get_utc_now>(g::global, "GetUtcNow", "Returns the server's current UTC time."),
        make_operation<&h::get_error_desc>(g::errors, "GetErrorDesc", reads, {"errorCode", "cultureCode"}, {},
                                           "Describes a result code in English (1033) or Russian (1049)."),
    };
}

}  // namespace

const std::vector<operation>& operations() {
    static const std::vector<operation> table = build_table();
    return table;
}

std::span<const api_group> all_groups() { return groups; }

// In api_group's order (core/api/operation.hpp).
constexpr enum_names<api_group, 6> group_names{
    {"AccountApi", "TelepayApi", "SimpleAuthApi", "PushApi", "GlobalApi", "ErrorsApi"}};
static_assert(group_names.ends_at(api_group::errors));

std::string_view group_name(api_group g) { return group_names[g]; }

const operation* find_operation(api_group group, std::string_view name) {
    for (const auto& op : operations()) {
        if (op.group == group && op.name == name) return &op;
    }
    return nullptr;
}

std::optional<api_group> group_from_name(std::string_view name) {
    for (auto g : groups) {
        if (group_name(g) == name) return g;
    }
    return std::nullopt;
}

}  // namespace keeper::core
