#include "db/store/session_key.hpp"

#include "core/api/digest.hpp"

namespace keeper::db {

std::string session_key(std::string_view session_id) { return "\\x" + core::sha256_hex(session_id); }

}  // namespace keeper::db
