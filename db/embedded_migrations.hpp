#pragma once
#include <string_view>
#include <vector>

namespace keeper::db {

struct migration_source {
    std::string_view file_stem;  // "0001_sessions"
    std::string_view sql;
};

// Every file of db/migrations, in order (generated at build time).
const std::vector<migration_source>& embedded_migrations();

}  // namespace keeper::db
