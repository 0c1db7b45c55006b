#pragma once
// A store whose database is down: every call counts itself and throws store_error, as
// db::pg_store does when it cannot connect. Unit tests use it to prove that calls needing no
// database never ask, that bad input is refused first, and that a failing store is a server fault.
#include "tests/support/store_double.hpp"

namespace keeper::test {

struct database_down {
    static constexpr bool up = false;
    int calls = 0;

    [[noreturn]] void fail() {
        ++calls;
        throw core::store_error("cannot connect to the database");
    }
    [[noreturn]] std::optional<std::string> secret() { fail(); }
    [[noreturn]] core::store_result write() { fail(); }
    [[noreturn]] core::code_lookup code() { fail(); }
    [[noreturn]] std::optional<core::application_record> application() { fail(); }
    [[noreturn]] core::store_result audit(core::result_code) { fail(); }
    [[noreturn]] core::call_record recorded_call() { fail(); }
};

using unreachable_store = store_double<database_down>;

}  // namespace keeper::test
