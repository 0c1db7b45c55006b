#include "fresh_database.hpp"

#include <unistd.h>

#include <sstream>

#include "db/schema/migrator.hpp"
#include "test_env.hpp"

namespace keeper::test {

fresh_database::fresh_database(const std::string& suffix, int up_to)
    : m_name("keeper_test_" + std::to_string(getpid()) + (suffix.empty() ? "" : "_" + suffix)) {
    const auto admin = admin_url();
    {
        pqxx::connection conn{admin};
        pqxx::nontransaction tx{conn};
        tx.exec("DROP DATABASE IF EXISTS " + tx.quote_name(m_name));
        tx.exec("CREATE DATABASE " + tx.quote_name(m_name));
    }
    m_url = admin + " dbname=" + m_name;  // a later dbname wins in a libpq connection string
    m_conn = std::make_unique<pqxx::connection>(m_url);
    std::ostringstream log;
    db::migrate(*m_conn, log, up_to);
}

fresh_database::~fresh_database() {
    m_conn.reset();
    try {
        pqxx::connection conn{admin_url()};
        pqxx::nontransaction tx{conn};
        tx.exec("DROP DATABASE IF EXISTS " + tx.quote_name(m_name) + " WITH (FORCE)");
    } catch (...) {
        // Left behind for inspection; the next run of the same pid drops it.
    }
}

}  // namespace keeper::test
