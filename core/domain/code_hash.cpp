#include "core/domain/code_hash.hpp"

#include "core/api/digest.hpp"
#include "core/api/text_util.hpp"

#include <openssl/crypto.h>
#include <openssl/rand.h>

#include <stdexcept>
#include <vector>

namespace keeper::core {
namespace {

constexpr std::string_view scheme = "sha256$";
constexpr std::size_t salt_bytes = 16;

std::vector<unsigned char> from_hex(std::string_view s) {
    std::vector<unsigned char> out;
    const auto nibble = [](char c) { return c <= '9' ? c - '0' : c - 'a' + 10; };
    for (std::size_t i = 0; i + 1 < s.size(); i += 2)
        out.push_back(static_cast<unsigned char>(nibble(s[i]) * 16 + nibble(s[i + 1])));
    return out;
}

std::string digest_hex(const std::vector<unsigned char>& salt, std::string_view code) {
    std::string input(salt.begin(), salt.end());
    input += code;
    return sha256_hex(input);
}

}  // namespace

std::string make_code_hash(std::string_view code) {
    std::vector<unsigned char> salt(salt_bytes);
    if (RAND_bytes(salt.data(), static_cast<int>(salt.size())) != 1)
        throw std::runtime_error("no random bytes for a salt");
    return std::string{scheme} + lower_hex(salt.data(), salt.size()) + "$" + digest_hex(salt, code);
}

bool code_matches(std::string_view stored, std::string_view code) {
    if (stored.substr(0, scheme.size()) != scheme) return false;
    const auto rest = stored.substr(scheme.size());
    const auto dollar = rest.find('$');
    if (dollar != salt_bytes * 2 || rest.size() != dollar + 1 + 64) return false;
    const auto expected = rest.substr(dollar + 1);
    const auto actual = digest_hex(from_hex(rest.substr(0, dollar)), code);
    return CRYPTO_memcmp(expected.data(), actual.data(), expected.size()) == 0;
}

}  // namespace keeper::core
