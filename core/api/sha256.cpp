#include "core/api/sha256.hpp"

#include <openssl/evp.h>

#include <array>
#include <stdexcept>

#include "core/api/text_util.hpp"

namespace keeper::core {

std::string sha256_hex(std::string_view bytes) {
    std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
    unsigned int length = 0;
    if (EVP_Digest(bytes.data(), bytes.size(), digest.data(), &length, EVP_sha256(), nullptr) != 1) {
        throw std::runtime_error("SHA-256 digest failed");
    }
    return lower_hex(digest.data(), length);
}

}  // namespace keeper::core
