#include "db/schema/embedded_sql.hpp"

#include "core/api/digest.hpp"

namespace keeper::db {

std::string sql_checksum(std::string_view sql) { return core::sha256_hex(sql); }

}  // namespace keeper::db
