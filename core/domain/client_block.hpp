#pragma once
// The block of addresses one client holds, as the throttles keyed by a client count it
// (docs/api-decisions.md, "Sessions and applications"): an IPv4 address itself; an IPv6 address's
// /64, a subscriber's usual allocation (RFC 6177), so one who holds a /64 is one client, not 2^64
// of them; an IPv4-mapped IPv6 address as its IPv4 address. Empty for a value that is no address
// (a request that came without REMOTE_ADDR).
#include <string>
#include <string_view>

namespace keeper::core {

std::string client_block(std::string_view remote_addr);

}  // namespace keeper::core
