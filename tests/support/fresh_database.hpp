#pragma once
// A database of its own for a test module: built by db/migrations and db/functions at start,
// dropped at the end. Tests on it see exactly the schema the migrations build.
#include <memory>
#include <pqxx/pqxx>
#include <string>

#include "core/domain/deadline.hpp"

namespace keeper::test {

class fresh_database {
public:
    // suffix tells apart several databases of one test process; up_to stops the migrations at that
    // version (0: all), to build a database as an older keeper left it.
    explicit fresh_database(const std::string& suffix = "", int up_to = 0);
    ~fresh_database();
    fresh_database(const fresh_database&) = delete;
    fresh_database& operator=(const fresh_database&) = delete;

    const std::string& url() const { return m_url; }
    // The same database as another role (keeperctl roles' keeper_worker, ...).
    std::string url_as(const std::string& role) const { return m_url + " user=" + role; }
    // A connection for the test's own SQL (set-up and checks).
    pqxx::connection& sql() { return *m_conn; }

private:
    std::string m_name;
    std::string m_url;
    std::unique_ptr<pqxx::connection> m_conn;
};

// A deadline for a store call a test makes directly: far enough for any of them.
inline core::deadline soon() { return core::deadline::after(std::chrono::seconds{10}); }

}  // namespace keeper::test
