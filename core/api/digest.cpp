#include "core/api/digest.hpp"

#include <openssl/evp.h>

#include <array>
#include <stdexcept>

#include "core/api/text_util.hpp"

namespace keeper::core {
namespace {

std::string hex_digest(std::string_view bytes, const EVP_MD* kind) {
    std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
    unsigned int length = 0;
    if (EVP_Digest(bytes.data(), bytes.size(), digest.data(), &length, kind, nullptr) != 1) {
        throw std::runtime_error("digest failed");
    }
    return lower_hex(digest.data(), length);
}

}  // namespace

std::string sha256_hex(std::string_view bytes) { return hex_digest(bytes, EVP_sha256()); }
std::string md5_hex(std::string_view bytes) { return hex_digest(bytes, EVP_md5()); }

}  // namespace keeper::core
