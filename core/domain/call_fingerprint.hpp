#pragma once
// What makes two calls "the same call" for an Idempotency-Key (docs/api-decisions.md,
// "Idempotency-Key"): the operation and its business arguments as the handler reads them. It is
// taken from the typed call, not the bytes, so a repeat over another transport, or with other
// whitespace or element order, is still the same call. The credentials that name the caller
// (sessionId, authHash) are no part of it: a key's scope is the caller they prove, so a client
// that authenticates again with a new session id and repeats its call repeats the same call.
// Authenticate's session id is the exception: it is not a credential there but what the call
// binds, so a repeat for another session is another call (422), never a replay of "0" for a
// session that was never bound.
#include <string>

#include "core/api/decoded_call.hpp"

namespace keeper::core {

// SHA-256 over the group, the operation and each business argument (name and normalised value:
// a purse as the handler normalises it, an amount as its decimal, a login, app or user id in
// lower case; each length-prefixed so no two calls share an input), as 64 lower-case hex digits.
std::string call_fingerprint(const decoded_call& call);

}  // namespace keeper::core
