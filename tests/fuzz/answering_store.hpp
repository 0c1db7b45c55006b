#pragma once
// An in-memory store that answers every call (0, a login's secret, an enabled application, a
// pending code), so the fuzzed pipeline goes all the way through the operations, as it does
// against PostgreSQL, without a database.
#include "tests/support/store_double.hpp"

namespace keeper::fuzz {

struct every_call_answered {
    using rc = core::result_code;
    static constexpr bool up = true;

    std::optional<std::string> secret() { return "secret"; }
    core::store_result write() { return rc::ok; }
    core::code_lookup code() { return {rc::ok, 1, "sha256$00$00"}; }
    std::optional<core::application_record> application() {
        return core::application_record{"secret", core::provider::Android, true};
    }
    core::store_result audit(rc result) { return result; }
    core::call_record recorded_call() { return {rc::ok, rc::ok, "2026-01-01T00:00:00.000Z"}; }
};

using answering_store = test::store_double<every_call_answered>;

}  // namespace keeper::fuzz
