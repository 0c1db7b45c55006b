#pragma once
// The digests keeper computes by hand, as lower-case hex: SHA-256 (an Idempotency-Key's call
// fingerprint, a protection code's salted hash, an SQL file's checksum in schema_definitions) and
// MD5 (the ASMX API's authHash, which the clients compute).
#include <string>
#include <string_view>

namespace keeper::core {

// 64 hex digits. Throws std::runtime_error should OpenSSL fail.
std::string sha256_hex(std::string_view bytes);
// 32 hex digits. Throws std::runtime_error should OpenSSL fail.
std::string md5_hex(std::string_view bytes);

}  // namespace keeper::core
