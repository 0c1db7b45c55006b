#pragma once
// Every SQL statement the worker runs, by name. Prepared once per connection (pg_store.cpp).
#include <string_view>

namespace keeper::db {

struct statement {
    std::string_view name;
    std::string_view sql;
};

inline constexpr statement worker_statements[] = {
    {"find_login_for_update", "SELECT id, login, shared_secret FROM logins WHERE login = $1 FOR UPDATE"},
    {"count_auth_failures",
     "SELECT count(*) FROM auth_failures WHERE login = $1 AND failed_at > now() - $2::integer * interval '1 second'"},
    {"record_auth_failure", "INSERT INTO auth_failures (login) VALUES ($1)"},
    {"prune_auth_failures",
     "DELETE FROM auth_failures WHERE login = $1 AND failed_at <= now() - $2::integer * interval '1 second'"},
    {"clear_auth_failures", "DELETE FROM auth_failures WHERE login = $1"},
    {"bind_session",
     "INSERT INTO sessions (session_id, login_id, authenticated_at) VALUES ($1, $2, now()) "
     "ON CONFLICT (session_id) DO UPDATE SET authenticated_at = EXCLUDED.authenticated_at "
     "WHERE sessions.login_id = EXCLUDED.login_id RETURNING login_id"},
    {"find_session",
     "SELECT s.login_id, l.login, s.authenticated_at + $2::integer * interval '1 second' > now() "
     "FROM sessions s JOIN logins l ON l.id = s.login_id WHERE s.session_id = $1"},
    {"find_application", "SELECT app_id, shared_secret, push_provider, enabled FROM applications WHERE app_id = $1"},
    {"write_audit",
     "INSERT INTO audit_log (login, app_id, operation, result, request_id) "
     "VALUES (NULLIF($1, ''), NULLIF($2, ''), $3, $4, $5)"},

    // Permits
    {"set_account_permits",
     "INSERT INTO account_permits (login_id, accept_payments, accept_invoices, accept_messages) VALUES ($1, $2, $3, $4) "
     "ON CONFLICT (login_id) DO UPDATE SET accept_payments = EXCLUDED.accept_payments, "
     "accept_invoices = EXCLUDED.accept_invoices, accept_messages = EXCLUDED.accept_messages, updated_at = now()"},
    {"set_contact_permits",
     "INSERT INTO contact_permits (login_id, wmid, accept_payments, accept_invoices, accept_messages, dont_use_confirmation) "
     "VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (login_id, wmid) DO UPDATE SET "
     "accept_payments = EXCLUDED.accept_payments, accept_invoices = EXCLUDED.accept_invoices, "
     "accept_messages = EXCLUDED.accept_messages, dont_use_confirmation = EXCLUDED.dont_use_confirmation, updated_at = now()"},

    // Protected transfers
    {"find_transfer_for_update",
     "SELECT status, code_hash, failed_attempts, expires_at <= now() FROM protected_transfers "
     "WHERE id = $1 AND login_id = $2 FOR UPDATE"},
    {"complete_transfer", "UPDATE protected_transfers SET status = 'completed', completed_at = now() WHERE id = $1"},
    {"record_transfer_failure",
     "UPDATE protected_transfers SET failed_attempts = failed_attempts + 1, "
     "status = CASE WHEN $2 THEN 'locked' ELSE status END WHERE id = $1"},

    // Top-ups
    {"purse_belongs_to", "SELECT 1 FROM purses WHERE purse = $1 AND login_id = $2"},
    {"find_card_for_update",
     "SELECT blocked, COALESCE(daily_limit::text, '') FROM cards WHERE id = $1 AND login_id = $2 FOR UPDATE"},
    {"exceeds_daily_limit",
     "SELECT COALESCE(sum(amount), 0) + $2::numeric > $3::numeric FROM topups "
     "WHERE card_id = $1 AND created_at > now() - interval '24 hours'"},
    {"insert_topup", "INSERT INTO topups (card_id, purse, amount, request_id) VALUES ($1, $2, $3::numeric, $4)"},
    {"credit_purse", "UPDATE purses SET balance = balance + $2::numeric WHERE purse = $1"},

    // Telepay
    {"rename_profile",
     "UPDATE telepay_profiles SET name = $3, updated_at = now() WHERE id = $1 AND login_id = $2 RETURNING id"},
    {"find_task_for_update",
     "SELECT t.status, t.code_hash, t.failed_attempts, t.expires_at <= now() FROM telepay_tasks t "
     "JOIN telepay_profiles p ON p.id = t.profile_id WHERE t.profile_id = $1 AND t.id = $2 AND p.login_id = $3 "
     "FOR UPDATE OF t"},
    {"activate_task", "UPDATE telepay_tasks SET status = 'active', confirmed_at = now() WHERE profile_id = $1 AND id = $2"},
    {"record_task_failure",
     "UPDATE telepay_tasks SET failed_attempts = failed_attempts + 1, "
     "status = CASE WHEN $3 THEN 'locked' ELSE status END WHERE profile_id = $1 AND id = $2"},

    // Push
    {"subscribe_device",
     "INSERT INTO push_subscriptions (provider, push_service_user_id, login_id, tag, locale) VALUES ($1, $2, $3, $4, $5) "
     "ON CONFLICT (provider, push_service_user_id) DO UPDATE SET login_id = EXCLUDED.login_id, tag = EXCLUDED.tag, "
     "locale = EXCLUDED.locale, updated_at = now()"},
    {"subscribe_app_device",
     "INSERT INTO app_push_subscriptions (provider, push_service_user_id, app_id, user_id, tag, locale) "
     "VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (provider, push_service_user_id) DO UPDATE SET "
     "app_id = EXCLUDED.app_id, user_id = EXCLUDED.user_id, tag = EXCLUDED.tag, locale = EXCLUDED.locale, updated_at = now()"},
    {"mark_sms_delivered",
     "UPDATE push_sms SET delivered_at = COALESCE(delivered_at, now()) WHERE id = $1 AND login_id = $2 RETURNING id"},
};

}  // namespace keeper::db
