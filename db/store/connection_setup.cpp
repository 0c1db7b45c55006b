#include "db/store/connection_setup.hpp"

#include <pqxx/pqxx>

#include "db/store/backend_ending.hpp"
#include "db/store/statements.hpp"

namespace keeper::db {

connection_pool::preparer connection_setup(database_timeouts bounds) {
    return [bounds](pqxx::connection& conn) {
        // set_variable also restores them should libpqxx reconnect this connection itself.
        conn.set_variable("lock_timeout", std::to_string(bounds.lock.count()));
        conn.set_variable("statement_timeout", std::to_string(bounds.statement.count()));
        // Names this worker in pg_stat_activity (over any name the connection string gives), for
        // people reading it (backend_ending.hpp).
        conn.set_variable("application_name", conn.quote(worker_application_name()));
        for (const auto& s : worker_statements) conn.prepare(std::string{s.name}, std::string{s.sql});
        constexpr const auto& s = statements::own_backend;
        const auto row = pqxx::nontransaction{conn}.exec_prepared1(std::string{s.name});
        return backend_identity{row[s.column("pid").data()].as<int>(),
                                row[s.column("backend_start").data()].as<std::string>()};
    };
}

}  // namespace keeper::db
