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

// A code-protected object: a protected transfer or a telepay scheduler task.
enum class coded_status { pending, done, locked };

struct coded_object {
    coded_status status = coded_status::pending;
    std::string code_hash;  // core/code_hash.hpp format
    int failed_attempts = 0;
    bool expired = false;   // expires_at has passed
};

struct card_record {
    bool blocked = false;
    std::string daily_limit;  // exact decimal; empty = the configured default
};

struct device_key {
    provider push_provider = provider::Undefined;
    std::string push_service_user_id;
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

    // Permits (SetAccountPermits, SetContactPermitsEx): insert or replace.
    virtual void set_account_permits(std::int64_t login_id, bool payments, bool invoices, bool messages) = 0;
    virtual void set_contact_permits(std::int64_t login_id, std::string_view wmid, bool payments, bool invoices,
                                     bool messages, bool dont_use_confirmation) = 0;

    // Protected transfers: locked until commit. Absent when not addressed to login_id.
    virtual std::optional<coded_object> find_transfer_for_update(std::int64_t tran_id, std::int64_t login_id) = 0;
    virtual void complete_transfer(std::int64_t tran_id) = 0;
    virtual void record_transfer_failure(std::int64_t tran_id, bool lock) = 0;

    // Top-ups. The card is locked until commit, so concurrent top-ups of one card sum exactly.
    virtual bool purse_belongs_to(std::string_view purse, std::int64_t login_id) = 0;
    virtual std::optional<card_record> find_card_for_update(std::int64_t card_id, std::int64_t login_id) = 0;
    // The card's top-ups of the last 24 hours plus amount, minus limit: > 0 means over (exact NUMERIC).
    virtual bool exceeds_daily_limit(std::int64_t card_id, std::string_view amount, std::string_view limit) = 0;
    // Records the top-up and adds amount to the purse's balance.
    virtual void record_topup(std::int64_t card_id, std::string_view purse, std::string_view amount,
                              std::string_view request_id) = 0;

    // Telepay. A task is found only through a profile owned by login_id.
    virtual bool rename_profile(std::int32_t profile_id, std::int64_t login_id, std::string_view name) = 0;
    virtual std::optional<coded_object> find_task_for_update(std::int32_t profile_id, std::int32_t task_id,
                                                             std::int64_t login_id) = 0;
    virtual void activate_task(std::int32_t profile_id, std::int32_t task_id) = 0;
    virtual void record_task_failure(std::int32_t profile_id, std::int32_t task_id, bool lock) = 0;

    // Push: a device (provider, id) belongs to one owner at a time and moves on subscription.
    virtual void subscribe_device(const device_key& device, std::int64_t login_id, std::int32_t tag, std::int32_t locale) = 0;
    virtual void subscribe_app_device(const device_key& device, std::string_view app_id, std::string_view user_id,
                                      std::int32_t tag, std::int32_t locale) = 0;
    // Sets delivered_at unless already set. False when no such SMS of login_id.
    virtual bool mark_sms_delivered(std::int32_t sms_id, std::int64_t login_id) = 0;

    virtual void write_audit(const audit_record& record) = 0;
    virtual void commit() = 0;
};

class store {
public:
    virtual ~store() = default;
    virtual std::unique_ptr<transaction> begin() = 0;
    // True when the database answers now (GET /health). Never throws.
    virtual bool healthy() = 0;
};

}  // namespace keeper::core
