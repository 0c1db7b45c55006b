#pragma once
// The SQL files this build carries, embedded at build time (cmake/embed_sql.cmake), so keeperctl
// and keeper-fcgi know the schema they expect without reading files at run time.
#include <string>
#include <string_view>
#include <vector>

namespace keeper::db {

struct sql_source {
    std::string_view file_stem;  // "0001_sessions", "keeper_topup"
    std::string_view sql;
};

// Every file of db/migrations, in version order.
const std::vector<sql_source>& embedded_migrations();
// Every file of db/functions, in name order.
const std::vector<sql_source>& embedded_functions();

// SHA-256 of a file's text, hex: the checksum recorded when it is applied.
std::string sql_checksum(std::string_view sql);

}  // namespace keeper::db
