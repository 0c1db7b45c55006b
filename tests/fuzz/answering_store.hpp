#pragma once
// An in-memory store that answers every call (0, a login's secret, an enabled application, a
// pending code), so the fuzzed pipeline goes all the way through the operations, as it does
// against PostgreSQL, without a database.
#include "core/domain/store.hpp"

namespace keeper::fuzz {

struct answering_store final : core::store {
    using rc = core::result_code;
    std::optional<std::string> find_login_secret(std::string_view, const core::deadline&) override { return "secret"; }
    core::store_result authenticate(const core::call_frame&, std::string_view, std::string_view, bool,
                                    std::chrono::seconds, int) override {
        return rc::ok;
    }
    core::store_result check_session(const core::call_frame&, const core::session_ref&, std::string_view) override {
        return rc::ok;
    }
    core::store_result set_account_permits(const core::call_frame&, const core::session_ref&, bool, bool,
                                           bool) override {
        return rc::ok;
    }
    core::store_result set_contact_permits(const core::call_frame&, const core::session_ref&, std::string_view, bool,
                                           bool, bool, bool) override {
        return rc::ok;
    }
    core::code_lookup find_transfer_code(const core::call_frame&, const core::session_ref&, std::int64_t) override {
        return {rc::ok, 1, "sha256$00$00"};
    }
    core::store_result confirm_transfer(const core::call_frame&, const core::coded_call&, std::int64_t) override {
        return rc::ok;
    }
    core::code_lookup find_task_code(const core::call_frame&, const core::session_ref&, std::int32_t,
                                     std::int32_t) override {
        return {rc::ok, 1, "sha256$00$00"};
    }
    core::store_result confirm_task(const core::call_frame&, const core::coded_call&, std::int32_t,
                                    std::int32_t) override {
        return rc::ok;
    }
    core::store_result topup(const core::call_frame&, const core::session_ref&, const core::topup_request&) override {
        return rc::ok;
    }
    core::store_result rename_profile(const core::call_frame&, const core::session_ref&, std::int32_t,
                                      std::string_view) override {
        return rc::ok;
    }
    core::store_result subscribe_device(const core::call_frame&, const core::session_ref&,
                                        const core::device_subscription&) override {
        return rc::ok;
    }
    std::optional<core::application_record> find_application(std::string_view, const core::deadline&) override {
        return core::application_record{"secret", core::provider::Android, true};
    }
    core::store_result subscribe_app_device(const core::call_frame&, std::string_view, std::string_view,
                                            const core::device_subscription&, bool, const core::app_guard&) override {
        return rc::ok;
    }
    core::store_result mark_sms_delivered(const core::call_frame&, const core::session_ref&, std::int32_t) override {
        return rc::ok;
    }
    core::store_result audit_only(const core::call_frame&, std::string_view, std::string_view, rc result) override {
        return result;
    }
    core::call_record find_call(const core::session_ref&, std::string_view, core::utc_time, core::utc_time,
                                const core::deadline&) override {
        return {rc::ok, rc::ok, "2026-01-01T00:00:00.000Z"};
    }
    bool healthy() override { return true; }
    bool takes_writes() override { return true; }
    std::optional<bool> names_synchronous_standby() override { return true; }
    std::optional<std::chrono::microseconds> database_clock_offset() override { return std::chrono::microseconds{0}; }
};

}  // namespace keeper::fuzz
