#pragma once
// What operations need from persistence. core/ sees only this interface; db/store/pg_store is the
// PostgreSQL implementation, and nothing in core/ speaks SQL.
//
// Each write method is one operation's whole database work: it resolves the session, applies the
// operation's rules that need rows (ownership, locks, limits, attempts), makes the change, writes
// the audit row, commits, and returns the result code — one round trip. Checks that need a secret
// or a code hash (Authenticate, the code confirmations, SubscribeAppWithTagAndLocale) are made by
// the operation in between a read and the write, so those cost two. A result other than ok
// changes nothing but counters and the audit row (docs/design.md).
#include <chrono>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "core/api/date_time.hpp"
#include "core/api/provider.hpp"
#include "core/api/result_code.hpp"
#include "core/domain/call_frame.hpp"
#include "core/domain/deadline.hpp"

namespace keeper::core {

// Thrown by a store when the database cannot do the work (connection lost, SQL failure).
// what() is for the log only and carries no values from the request.
class store_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// A write whose outcome the store could not settle by the call's deadline (docs/design.md,
// "In-doubt calls"): its connection broke after the statement was sent, or its commit was not
// known to be on the synchronous standby in time. It may or may not have been applied. The fault
// boundary says so to the client, with the request id.
class outcome_unknown : public store_error {
public:
    outcome_unknown(std::string_view request_id, std::string_view why)
        : store_error("commit outcome unknown for request " + std::string{request_id} + ": " + std::string{why}) {}
};

// A call the database did not do, and it is known: nothing was sent before the call's deadline, or
// the statement rolled back (cancelled at the deadline, or a lock waited for past lock_timeout).
// The fault boundary tells the client that nothing changed and that it may repeat the call.
class not_applied : public store_error {
public:
    using store_error::store_error;
};

// The caller's Idempotency-Key names an earlier call with other parameters or another operation.
// Nothing was changed; the fault boundary answers a client fault (422 where HTTP status carries it).
class key_reused : public std::runtime_error {
public:
    key_reused() : std::runtime_error("this Idempotency-Key was used with other parameters") {}
};

// A keyed call waited for a lock past lock_timeout (most often the same key's first call, still
// running) and changed nothing: the client repeats it with the same key.
class key_in_flight : public std::runtime_error {
public:
    key_in_flight() : std::runtime_error("a keyed call waited past lock_timeout") {}
};

// A call's session: its id (lower case) and the configured lifetime.
struct session_ref {
    std::string_view session_id;
    std::chrono::seconds ttl;
};

struct application_record {
    std::string secret;
    provider push_provider = provider::Undefined;
    bool enabled = false;
};

// First step of a code confirmation: ok with the object's stored code hash, or the call's final
// result (session problems, not found), already audited.
struct code_lookup {
    result_code result = result_code::not_found;
    std::int64_t login_id = 0;
    std::string code_hash;  // core/domain/code_hash.hpp format
    bool replayed = false;  // a keyed repeat's recorded final result (store_result::replayed)
};

// Who proved what: passed from a read to the write that follows it.
struct coded_call {
    std::int64_t login_id = 0;
    bool code_matches = false;
    int max_attempts = 0;
};

struct topup_request {
    std::string_view purse;
    std::int64_t card_id = 0;
    std::string_view amount;               // exact decimal
    std::string_view max_amount;           // exact decimal: the per-operation limit
    std::string_view default_daily_limit;  // exact decimal: for cards without their own
};

struct device_subscription {
    provider push_provider = provider::Undefined;
    std::string_view push_service_user_id;
    std::int32_t tag = 0;
    std::int32_t locale = 0;
};

// A caller's look at one of its own calls (GET /call-outcome, core/pipeline/call_outcome.hpp): the
// session's code; with a valid session (ok), the result and time its login's call with the request
// id recorded, once the synchronous standby has it, or no result. Without a result, `undecided`
// says how long to wait before asking again; 0: the database decided that no attempt of the call
// commits, ever (docs/design.md, "A call decided as not applied").
struct call_record {
    result_code session = result_code::session_not_found;
    std::optional<result_code> result;
    std::string at;  // with a result: when it was recorded, ISO 8601 in UTC
    std::chrono::milliseconds undecided{0};
};

// SubscribeAppWithTagAndLocale's guard against guessing (docs/api-decisions.md, "Sessions and
// applications"): failures counted per (application, userId) within the window, as Authenticate's
// per login; never per address, which the phones behind a carrier's NAT share.
struct app_guard {
    std::chrono::seconds window{900};
    int max_failures = 20;  // failures of one (application, userId)
};

// Every write takes the call's frame (call_frame.hpp), which names its audit row. With an
// Idempotency-Key, the write also records the key, the call's fingerprint and its result, in its
// own transaction, under the caller it resolves (a session's login, the app, Authenticate's
// login); or answers a replayed store_result / throws key_reused when the caller already used the
// key.
class store {
public:
    virtual ~store() = default;

    // Authenticate: the login's shared secret (login lower case), if the login exists. Reads only.
    virtual std::optional<std::string> find_login_secret(std::string_view login, const deadline& until) = 0;
    // Authenticate's transaction: the throttle (counted under the login's row lock), then binding
    // (or renewing) the session when `proven`, else recording the failure.
    virtual store_result authenticate(const call_frame& frame, std::string_view login, std::string_view session_id,
                                      bool proven, std::chrono::seconds failure_window, int max_failures) = 0;

    virtual store_result check_session(const call_frame& frame, const session_ref& session,
                                       std::string_view app_id) = 0;

    virtual store_result set_account_permits(const call_frame& frame, const session_ref& session, bool payments,
                                             bool invoices, bool messages) = 0;
    virtual store_result set_contact_permits(const call_frame& frame, const session_ref& session, std::string_view wmid,
                                             bool payments, bool invoices, bool messages,
                                             bool dont_use_confirmation) = 0;

    virtual code_lookup find_transfer_code(const call_frame& frame, const session_ref& session,
                                           std::int64_t tran_id) = 0;
    virtual store_result confirm_transfer(const call_frame& frame, const coded_call& call, std::int64_t tran_id) = 0;
    virtual code_lookup find_task_code(const call_frame& frame, const session_ref& session, std::int32_t profile_id,
                                       std::int32_t task_id) = 0;
    virtual store_result confirm_task(const call_frame& frame, const coded_call& call, std::int32_t profile_id,
                                      std::int32_t task_id) = 0;

    virtual store_result topup(const call_frame& frame, const session_ref& session, const topup_request& topup) = 0;

    virtual store_result rename_profile(const call_frame& frame, const session_ref& session, std::int32_t profile_id,
                                        std::string_view name) = 0;

    virtual store_result subscribe_device(const call_frame& frame, const session_ref& session,
                                          const device_subscription& device) = 0;
    // SubscribeAppWithTagAndLocale: the application (app_id lower case), if registered. Reads only.
    virtual std::optional<application_record> find_application(std::string_view app_id, const deadline& until) = 0;
    // For an enabled application; proven: authHash is right for its secret. The guard decides
    // first (11); a call not proven is a failure (4), counted for (app_id, user_id).
    virtual store_result subscribe_app_device(const call_frame& frame, std::string_view app_id,
                                              std::string_view user_id, const device_subscription& device, bool proven,
                                              const app_guard& guard) = 0;
    virtual store_result mark_sms_delivered(const call_frame& frame, const session_ref& session,
                                            std::int32_t sms_id) = 0;

    // The audit row of a call refused by a check made in the worker (a wrong authHash); returns result.
    virtual store_result audit_only(const call_frame& frame, std::string_view login, std::string_view app_id,
                                    result_code result) = 0;

    // The call with this request id (nginx first saw it at `sent`) of the session's login; from
    // `final` on, by the database's clock, one found neither recorded nor possibly in progress is
    // decided as never to commit. Waits for the synchronous standby to hold what it answers.
    virtual call_record find_call(const session_ref& session, std::string_view request_id, utc_time sent,
                                  utc_time final, const deadline& until) = 0;

    // True when the database answers now (GET /health). Never throws.
    virtual bool healthy() = 0;
    // True when the database answers now and takes writes: a primary, not a standby (GET /ready).
    // Never throws.
    virtual bool takes_writes() = 0;
    // Whether the database names a synchronous standby (commits wait for a second copy); nullopt
    // when it does not answer now (GET /metrics). Never throws.
    virtual std::optional<bool> names_synchronous_standby() = 0;
    // The database's clock minus this host's, measured now over one round trip (off by at most half
    // of it); nullopt when the database does not answer now (GET /metrics). Never throws.
    virtual std::optional<std::chrono::microseconds> database_clock_offset() = 0;
};

}  // namespace keeper::core
