#pragma once
// A store whose database is down: every call counts itself and throws store_error, as
// db::pg_store does when it cannot connect. Unit tests use it to prove that calls needing no
// database never ask, that bad input is refused first, and that a failing store is a server fault.
#include "core/domain/store.hpp"

namespace keeper::test {

struct unreachable_store : core::store {
    int calls = 0;

    [[noreturn]] void fail() {
        ++calls;
        throw core::store_error("cannot connect to the database");
    }

    std::optional<std::string> find_login_secret(std::string_view, const core::deadline&) override { fail(); }
    core::store_result authenticate(const core::call_frame&, std::string_view, std::string_view, bool,
                                    std::chrono::seconds, int) override {
        fail();
    }
    core::store_result check_session(const core::call_frame&, const core::session_ref&, std::string_view) override {
        fail();
    }
    core::store_result set_account_permits(const core::call_frame&, const core::session_ref&, bool, bool,
                                           bool) override {
        fail();
    }
    core::store_result set_contact_permits(const core::call_frame&, const core::session_ref&, std::string_view, bool,
                                           bool, bool, bool) override {
        fail();
    }
    core::code_lookup find_transfer_code(const core::call_frame&, const core::session_ref&, std::int64_t) override {
        fail();
    }
    core::store_result confirm_transfer(const core::call_frame&, const core::coded_call&, std::int64_t) override {
        fail();
    }
    core::code_lookup find_task_code(const core::call_frame&, const core::session_ref&, std::int32_t,
                                     std::int32_t) override {
        fail();
    }
    core::store_result confirm_task(const core::call_frame&, const core::coded_call&, std::int32_t,
                                    std::int32_t) override {
        fail();
    }
    core::store_result topup(const core::call_frame&, const core::session_ref&, const core::topup_request&) override {
        fail();
    }
    core::store_result rename_profile(const core::call_frame&, const core::session_ref&, std::int32_t,
                                      std::string_view) override {
        fail();
    }
    core::store_result subscribe_device(const core::call_frame&, const core::session_ref&,
                                        const core::device_subscription&) override {
        fail();
    }
    std::optional<core::application_record> find_application(std::string_view, const core::deadline&) override {
        fail();
    }
    core::store_result subscribe_app_device(const core::call_frame&, std::string_view, std::string_view,
                                            const core::device_subscription&, bool, const core::app_guard&) override {
        fail();
    }
    core::store_result mark_sms_delivered(const core::call_frame&, const core::session_ref&, std::int32_t) override {
        fail();
    }
    core::store_result audit_only(const core::call_frame&, std::string_view, std::string_view,
                                  core::result_code) override {
        fail();
    }
    core::call_record find_call(const core::session_ref&, std::string_view, core::utc_time, core::utc_time,
                                const core::deadline&) override {
        fail();
    }
    bool healthy() override { return false; }
    bool takes_writes() override { return false; }
    std::optional<bool> names_synchronous_standby() override { return std::nullopt; }
    std::optional<std::chrono::microseconds> database_clock_offset() override { return std::nullopt; }
};

}  // namespace keeper::test
