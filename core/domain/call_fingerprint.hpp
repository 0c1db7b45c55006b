#pragma once
// What makes two calls "the same call" for an Idempotency-Key (docs/api-decisions.md,
// "Idempotency-Key"): the operation and every decoded argument. It is taken from the typed call,
// not the bytes, so a repeat over another transport, or with other whitespace or element order,
// is still the same call.
#include <string>

#include "core/api/decoded_call.hpp"

namespace keeper::core {

// SHA-256 over the group, the operation and each argument (type and canonical value, each
// length-prefixed so no two calls share an input), as 64 lower-case hex digits.
std::string call_fingerprint(const decoded_call& call);

}  // namespace keeper::core
