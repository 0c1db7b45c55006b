#pragma once
// The Idempotency-Key section of docs/api.md: what the header does and how each client stack
// sends it.
#include <string>

namespace keeper::core {

std::string idempotency_key_guide();

}  // namespace keeper::core
