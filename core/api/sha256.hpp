#pragma once
// SHA-256 as lower-case hex: the one digest keeper writes by hand (an Idempotency-Key's call
// fingerprint, a protection code's salted hash, an SQL file's checksum in schema_definitions).
#include <string>
#include <string_view>

namespace keeper::core {

// 64 hex digits. Throws std::runtime_error should OpenSSL fail (it does not for SHA-256).
std::string sha256_hex(std::string_view bytes);

}  // namespace keeper::core
