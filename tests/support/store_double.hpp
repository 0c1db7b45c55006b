#pragma once
// A store that answers each kind of call one way, for core's pipeline without a database: every
// store method asks `Answers` (a write's result, a login's secret, a code, an application, a
// recorded call) and `Answers::up` says whether the database is there. unreachable_store
// (tests/support/unreachable_store.hpp) fails every call; the fuzz targets' answering_store
// (tests/fuzz/answering_store.hpp) answers every call.
#include "core/domain/store.hpp"

namespace keeper::test {

template <class Answers>
struct store_double : core::store, Answers {
    using frame_arg = const core::call_frame&;
    using session_arg = const core::session_ref&;

    std::optional<std::string> find_login_secret(std::string_view, const core::deadline&) override {
        return this->secret();
    }
    core::store_result authenticate(frame_arg, std::string_view, std::string_view, bool, std::chrono::seconds,
                                    int) override {
        return this->write();
    }
    core::store_result check_session(frame_arg, session_arg, std::string_view) override { return this->write(); }
    core::store_result set_account_permits(frame_arg, session_arg, bool, bool, bool) override { return this->write(); }
    core::store_result set_contact_permits(frame_arg, session_arg, std::string_view, bool, bool, bool, bool) override {
        return this->write();
    }
    core::code_lookup find_transfer_code(frame_arg, session_arg, std::int64_t) override { return this->code(); }
    core::store_result confirm_transfer(frame_arg, const core::coded_call&, std::int64_t) override {
        return this->write();
    }
    core::code_lookup find_task_code(frame_arg, session_arg, std::int32_t, std::int32_t) override {
        return this->code();
    }
    core::store_result confirm_task(frame_arg, const core::coded_call&, std::int32_t, std::int32_t) override {
        return this->write();
    }
    core::store_result topup(frame_arg, session_arg, const core::topup_request&) override { return this->write(); }
    core::store_result rename_profile(frame_arg, session_arg, std::int32_t, std::string_view) override {
        return this->write();
    }
    core::store_result subscribe_device(frame_arg, session_arg, const core::device_subscription&) override {
        return this->write();
    }
    std::optional<core::application_record> find_application(std::string_view, const core::deadline&) override {
        return this->application();
    }
    core::store_result subscribe_app_device(frame_arg, std::string_view, std::string_view,
                                            const core::device_subscription&, bool, const core::app_guard&) override {
        return this->write();
    }
    core::store_result mark_sms_delivered(frame_arg, session_arg, std::int32_t) override { return this->write(); }
    core::store_result audit_only(frame_arg, std::string_view, std::string_view, core::result_code result) override {
        return this->audit(result);
    }
    core::call_record find_call(session_arg, std::string_view, core::utc_time, core::utc_time,
                                const core::deadline&) override {
        return this->recorded_call();
    }
    bool healthy() override { return Answers::up; }
    bool takes_writes() override { return Answers::up; }
    std::optional<bool> names_synchronous_standby() override {
        return Answers::up ? std::optional<bool>{true} : std::nullopt;
    }
    std::optional<std::chrono::microseconds> database_clock_offset() override {
        return Answers::up ? std::optional{std::chrono::microseconds{0}} : std::nullopt;
    }
};

}  // namespace keeper::test
