#pragma once
// authHash = hex(MD5(lower(a) ":" lower(b) ":" lower(c))) (docs/api.md, Authenticate), and its comparison.
#include <optional>
#include <string>
#include <string_view>

#include "core/api/digest.hpp"  // md5_hex

namespace keeper::core {

// The expected hash for three parts, each lower-cased (Unicode-aware) before joining.
std::string expected_auth_hash(std::string_view a, std::string_view b, std::string_view c);

// Constant-time comparison of two 32-digit hex hashes, either case. Takes the same time whether
// or not they match, and wherever they first differ.
bool auth_hash_matches(std::string_view expected_lower_hex, std::string_view given);

// True when given proves knowledge of secret for (name, salt). Without a secret (unknown or
// disabled subject) it does the same hash work and answers false, so timing does not reveal
// which names exist.
bool auth_hash_proves(std::string_view name, const std::optional<std::string>& secret, std::string_view salt,
                      std::string_view given);

}  // namespace keeper::core
