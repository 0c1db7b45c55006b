#pragma once
// Every SQL statement the worker runs, by name. Prepared once per connection (pg_store.cpp). The
// operations' work is in the keeper_* functions of db/migrations/0003_call_functions.sql; each
// statement here is one round trip, run outside any explicit transaction (the function's own
// statement is its transaction).
#include <string_view>

namespace keeper::db {

struct statement {
    std::string_view name;
    std::string_view sql;
};

inline constexpr statement worker_statements[] = {
    {"find_login_secret", "SELECT shared_secret FROM logins WHERE login = $1"},
    {"find_application", "SELECT shared_secret, push_provider, enabled FROM applications WHERE app_id = $1"},
    {"authenticate", "SELECT keeper_authenticate($1, $2, $3, $4, $5, $6, $7) AS result"},
    {"check_session", "SELECT keeper_check_session($1, $2, $3, $4, $5) AS result"},
    {"set_account_permits", "SELECT keeper_set_account_permits($1, $2, $3, $4, $5, $6, $7) AS result"},
    {"set_contact_permits", "SELECT keeper_set_contact_permits($1, $2, $3, $4, $5, $6, $7, $8, $9) AS result"},
    {"find_code", "SELECT result, login_id, login, code_hash FROM keeper_code_hash($1, $2, $3, $4, $5, $6, $7)"},
    {"confirm_transfer", "SELECT keeper_confirm_transfer($1, $2, $3, $4, $5, $6, $7) AS result"},
    {"confirm_task", "SELECT keeper_confirm_task($1, $2, $3, $4, $5, $6, $7, $8) AS result"},
    {"topup", "SELECT keeper_topup($1, $2, $3, $4, $5, $6, $7::numeric, $8::numeric, $9::numeric) AS result"},
    {"rename_profile", "SELECT keeper_rename_profile($1, $2, $3, $4, $5, $6) AS result"},
    {"subscribe_device", "SELECT keeper_subscribe_device($1, $2, $3, $4, $5, $6, $7, $8) AS result"},
    {"subscribe_app_device", "SELECT keeper_subscribe_app_device($1, $2, $3, $4, $5, $6, $7, $8) AS result"},
    {"mark_sms_delivered", "SELECT keeper_mark_sms_delivered($1, $2, $3, $4, $5) AS result"},
    {"audit_only", "SELECT keeper_audit($1, $2, NULLIF($3, ''), NULLIF($4, ''), $5) AS result"},
};

}  // namespace keeper::db
