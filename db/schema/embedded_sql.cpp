#include "db/schema/embedded_sql.hpp"

#include <openssl/evp.h>

#include <array>

#include "core/api/text_util.hpp"

namespace keeper::db {

std::string sql_checksum(std::string_view sql) {
    std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
    unsigned int length = 0;
    EVP_Digest(sql.data(), sql.size(), digest.data(), &length, EVP_sha256(), nullptr);
    return core::lower_hex(digest.data(), length);
}

}  // namespace keeper::db
