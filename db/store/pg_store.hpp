#pragma once
// core::store on PostgreSQL through libpqxx 6.4: each method is one line over the call executor
// (call_executor.hpp), which runs the statement and settles, replays and acknowledges the call.
// Every statement is a handle of statements.hpp, prepared once per connection; each store call is
// one prepared statement in autocommit, calling one of the keeper_* functions that hold the
// operation's transaction.
#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include "core/domain/store.hpp"
#include "db/store/call_executor.hpp"
#include "db/secrets/key_file.hpp"

namespace keeper::db {

class pg_store final : public core::store {
public:
    // At most `connections` open at once; callers beyond that wait for one to be given back.
    // keys open the sealed shared secrets; without them only secrets still in clear can be read.
    // gauges (may be null): the pool's and the database's series of /metrics. calls (may be null): the
    // host's record of calls in flight, shared by its workers (call_record.hpp).
    explicit pg_store(std::string conninfo, std::size_t connections = 1, database_timeouts bounds = {},
                      std::shared_ptr<const key_file> keys = nullptr, database_gauges* gauges = nullptr,
                      call_record* calls = nullptr);
    ~pg_store() override;

    std::optional<std::string> find_login_secret(std::string_view login, const core::deadline& until) override;
    core::store_result authenticate(const core::call_frame& frame, std::string_view login, std::string_view session_id,
                                    bool proven, std::chrono::seconds failure_window, int max_failures) override;
    core::store_result check_session(const core::call_frame& frame, const core::session_ref& session,
                                     std::string_view app_id) override;
    core::store_result set_account_permits(const core::call_frame& frame, const core::session_ref& session,
                                           bool payments, bool invoices, bool messages) override;
    core::store_result set_contact_permits(const core::call_frame& frame, const core::session_ref& session,
                                           std::string_view wmid, bool payments, bool invoices, bool messages,
                                           bool dont_use_confirmation) override;
    core::code_lookup find_transfer_code(const core::call_frame& frame, const core::session_ref& session,
                                         std::int64_t tran_id) override;
    core::store_result confirm_transfer(const core::call_frame& frame, const core::coded_call& call,
                                        std::int64_t tran_id) override;
    core::code_lookup find_task_code(const core::call_frame& frame, const core::session_ref& session,
                                     std::int32_t profile_id, std::int32_t task_id) override;
    core::store_result confirm_task(const core::call_frame& frame, const core::coded_call& call,
                                    std::int32_t profile_id, std::int32_t task_id) override;
    core::store_result topup(const core::call_frame& frame, const core::session_ref& session,
                             const core::topup_request& topup) override;
    core::store_result rename_profile(const core::call_frame& frame, const core::session_ref& session,
                                      std::int32_t profile_id, std::string_view name) override;
    core::store_result subscribe_device(const core::call_frame& frame, const core::session_ref& session,
                                        const core::device_subscription& device) override;
    std::optional<core::application_record> find_application(std::string_view app_id,
                                                             const core::deadline& until) override;
    core::store_result subscribe_app_device(const core::call_frame& frame, std::string_view app_id,
                                            std::string_view user_id, const core::device_subscription& device,
                                            bool proven, const core::app_guard& guard) override;
    core::store_result mark_sms_delivered(const core::call_frame& frame, const core::session_ref& session,
                                          std::int32_t sms_id) override;
    core::store_result audit_only(const core::call_frame& frame, std::string_view login, std::string_view app_id,
                                  core::result_code result) override;

    core::call_record find_call(const core::session_ref& session, std::string_view request_id, core::utc_time sent,
                                core::utc_time final, const core::deadline& until) override;
    bool healthy() override;
    std::optional<bool> names_synchronous_standby() override;
    std::optional<std::chrono::microseconds> database_clock_offset() override;
    bool takes_writes() override;

private:
    // A keeper_* function's call: the call's frame, then args (statements.hpp, call_statement).
    template <const auto& S, typename... Args>
    statement_answer write(const core::call_frame& frame, const Args&... args);
    // write() for the functions that return the call's result code in their column "result".
    template <const auto& S, typename... Args>
    core::store_result result_of(const core::call_frame& frame, const Args&... args);
    template <const auto& S, typename... Args>
    pqxx::result read(const core::deadline& until, const Args&... args);

    static core::code_lookup code_lookup_of(const statement_answer& a);
    // A keyed call's fingerprints as the frame carries them (pg_store.cpp).
    std::string stored_fingerprints(std::string_view fingerprint) const;

    // The stored secret, opened. Throws core::store_error when it is sealed and cannot be opened.
    std::string opened_secret(const std::string& stored, const std::string& row) const;

    call_executor m_calls;
    std::shared_ptr<const key_file> m_keys;
};

}  // namespace keeper::db
