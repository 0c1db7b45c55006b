#pragma once
// The Idempotency-Key request header (IETF httpapi draft; docs/api-decisions.md,
// "Idempotency-Key"): the same on all five transports, since it travels beside the call, not in it.
#include <optional>
#include <string>
#include <string_view>

namespace keeper::core {

inline constexpr std::size_t idempotency_key_max_bytes = 255;

// The key the header carries, or nullopt without the header. The draft writes the key as a
// Structured Field string ("..."); the bare form that most payment APIs take is accepted too.
// Either way the key is 1 to 255 visible ASCII characters (0x21-0x7E); anything else is a client
// fault naming the rule, never the value.
std::optional<std::string> read_idempotency_key(const std::optional<std::string>& header);

}  // namespace keeper::core
