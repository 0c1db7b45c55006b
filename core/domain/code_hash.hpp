#pragma once
// Protection and confirmation codes are stored salted and hashed, never in clear:
// "sha256$<16-byte salt, hex>$<SHA-256(salt || code), hex>".
#include <string>
#include <string_view>

namespace keeper::core {

std::string make_code_hash(std::string_view code);

// Constant-time; false for a malformed stored value.
bool code_matches(std::string_view stored, std::string_view code);

}  // namespace keeper::core
