#include "operation_table.hpp"

#include <array>

#include "operations/handlers.hpp"

namespace keeper::core {
namespace {

constexpr std::array<api_group, 6> groups{api_group::account, api_group::telepay, api_group::simple_auth,
                                          api_group::push,    api_group::global,  api_group::errors};

std::vector<operation> build_table() {
    using g = api_group;
    namespace h = handlers;
    return {
        make_operation<&h::check_session_ex>(g::account, "CheckSessionEx", {"sessionId", "appId"},
            "Tells whether a session is valid and the application registered and enabled."),
        make_operation<&h::authenticate>(g::simple_auth, "Authenticate", {"sessionId", "login", "authHash"},
            "Binds a client-chosen session id to a login, proven by authHash."),
        make_operation<&h::get_utc_now>(g::global, "GetUtcNow",
            "Returns the server's current UTC time."),
        make_operation<&h::get_error_desc>(g::errors, "GetErrorDesc", {"errorCode", "cultureCode"},
            "Describes a result code in English (1033) or Russian (1049)."),
    };
}

}  // namespace

const std::vector<operation>& operations() {
    static const std::vector<operation> table = build_table();
    return table;
}

std::span<const api_group> all_groups() { return groups; }

std::string_view group_name(api_group g) {
    switch (g) {
        case api_group::account: return "AccountApi";
        case api_group::telepay: return "TelepayApi";
        case api_group::simple_auth: return "SimpleAuthApi";
        case api_group::push: return "PushApi";
        case api_group::global: return "GlobalApi";
        case api_group::errors: return "ErrorsApi";
    }
    return "";
}

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
