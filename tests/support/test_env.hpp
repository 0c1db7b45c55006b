#pragma once
// What scripts/test hands the database and end-to-end tiers. A missing variable fails the test
// loudly: a tier that silently skips would be a test that cannot fail.
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace keeper::test {

inline std::string required_env(const char* name) {
    const char* v = std::getenv(name);
    if (!v || !*v) {
        throw std::runtime_error(std::string{name} +
                                 " is not set: run the database and end-to-end tiers through scripts/test");
    }
    return v;
}

// libpq connection string of a database where the tests may create and drop databases.
inline std::string admin_url() { return required_env("KEEPER_TEST_ADMIN_URL"); }
// The running stack: its database, nginx's port, and the pool's pid.
inline std::string stack_database_url() { return required_env("KEEPER_TEST_DATABASE_URL"); }
inline int stack_port() { return std::stoi(required_env("KEEPER_TEST_PORT")); }
inline int stack_pool_pid() { return std::stoi(required_env("KEEPER_TEST_POOL_PID")); }
// The stack's state directory: its logs are in log/ (nginx-access.log, keeper.log, postgres.log).
inline std::string stack_state_dir() { return required_env("KEEPER_TEST_STATE"); }

}  // namespace keeper::test
