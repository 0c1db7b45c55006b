#include "core/domain/auth_hash.hpp"

#include <openssl/crypto.h>

#include "core/api/digest.hpp"
#include "core/api/text_util.hpp"

namespace keeper::core {

std::string expected_auth_hash(std::string_view a, std::string_view b, std::string_view c) {
    return md5_hex(to_lower_utf8(a) + ":" + to_lower_utf8(b) + ":" + to_lower_utf8(c));
}

bool auth_hash_matches(std::string_view expected_lower_hex, std::string_view given) {
    if (given.size() != expected_lower_hex.size()) return false;  // length is not secret
    const std::string given_lower = to_lower_ascii(given);
    return CRYPTO_memcmp(expected_lower_hex.data(), given_lower.data(), given_lower.size()) == 0;
}

bool auth_hash_proves(std::string_view name, const std::optional<std::string>& secret, std::string_view salt,
                      std::string_view given) {
    // A control character never occurs in a real secret, so this stand-in matches nothing.
    constexpr std::string_view no_secret = "\x01no-such-subject";
    const bool matches = auth_hash_matches(expected_auth_hash(name, secret ? *secret : no_secret, salt), given);
    return matches && secret.has_value();
}

}  // namespace keeper::core
