#pragma once
// Every SQL statement the worker runs, by name. Prepared once per connection (pg_store.cpp).
#include <array>
#include <string_view>

namespace keeper::db {

struct statement {
    std::string_view name;
    std::string_view sql;
};

inline constexpr std::array<statement, 9> worker_statements{{
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
}};

}  // namespace keeper::db
