#pragma once
// A database of its own for a test module: created from db/migrations at start, dropped at the
// end. Tests on it see exactly the schema the migrations build.
#include <memory>
#include <pqxx/pqxx>
#include <string>

namespace keeper::test {

class fresh_database {
public:
    fresh_database();
    ~fresh_database();
    fresh_database(const fresh_database&) = delete;
    fresh_database& operator=(const fresh_database&) = delete;

    const std::string& url() const { return m_url; }
    // A connection for the test's own SQL (set-up and checks).
    pqxx::connection& sql() { return *m_conn; }

private:
    std::string m_name;
    std::string m_url;
    std::unique_ptr<pqxx::connection> m_conn;
};

}  // namespace keeper::test
