#pragma once
// What operations need from persistence. core/ sees only these interfaces; db/pg_store is the
// PostgreSQL implementation (one transaction per call), and nothing in core/ speaks SQL.
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "provider.hpp"

namespace keeper::core {

// Thrown by a store when the database cannot do the work (connection lost, SQL failure).
// what() is for the log only and carries no values from the request.
class store_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct login_record {
    std::int64_t id = 0;
    std::string login;   // lower case
    std::string secret;  // the shared secret, needed in clear to recompute authHash
};

enum class session_status { valid, expired, not_found };

struct session_lookup {
    session_status status = session_status::not_found;
    std::int64_t login_id = 0;
    std::string login;
};

struct application_record {
    std::string app_id;  // lower case
    std::string secret;
    provider push_provider = provider::Undefined;
    bool enabled = false;
};

struct audit_record {
    std::string login;   // empty when the call resolved no login
    std::string app_id;  // empty when the call named no application
    std::string operation;
    int result = 0;
    std::string request_id;
};

// One database transaction. Rolled back when destroyed without commit().
class transaction {
public:
    virtual ~transaction() = default;

    // Locks the login's row until commit, so concurrent Authenticate calls count failures in turn.
    virtual std::optional<login_record> find_login_for_update(std::string_view login) = 0;
    virtual int count_auth_failures(std::string_view login, std::chrono::seconds window) = 0;
    // Also forgets this login's failures older than the window, so the table stays small.
    virtual void record_auth_failure(std::string_view login, std::chrono::seconds window) = 0;
    virtual void clear_auth_failures(std::string_view login) = 0;

    // Binds session_id to login_id (or renews it). False, changing nothing, when the session is
    // already bound to another login.
    virtual bool bind_session(std::string_view session_id, std::int64_t login_id) = 0;
    virtual session_lookup find_session(std::string_view session_id, std::chrono::seconds ttl) = 0;

    virtual std::optional<application_record> find_application(std::string_view app_id) = 0;

    virtual void write_audit(const audit_record& record) = 0;
    virtual void commit() = 0;
};

class store {
public:
    virtual ~store() = default;
    virtual std::unique_ptr<transaction> begin() = 0;
};

}  // namespace keeper::core
