#pragma once
// core::store on PostgreSQL through libpqxx 6.4. One connection per worker process, opened on
// first use and again after it is lost; every statement prepared once per connection; one
// pqxx::work per call. libpqxx errors are translated here, once, into core::store_error.
#include <memory>
#include <string>

#include <pqxx/connection>

#include "core/store.hpp"

namespace keeper::db {

class pg_store final : public core::store {
public:
    explicit pg_store(std::string conninfo);
    ~pg_store() override;

    std::unique_ptr<core::transaction> begin() override;

    // True when a connection is open (or could be opened now) and answers.
    bool healthy() override;

private:
    pqxx::connection& connection();

    std::string m_conninfo;
    std::unique_ptr<pqxx::connection> m_conn;
    bool m_broken = false;  // set by a transaction that lost the connection: reopen next time
};

}  // namespace keeper::db
