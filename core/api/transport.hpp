#pragma once
#include <cstddef>

namespace keeper::core {

// How a call arrived. `none` is for requests refused before a transport was known. Each other
// value has one row in the transport table (core/wire/transport_table.cpp), in this order.
enum class transport { none, soap11, soap12, http_get, http_post, json };
// How many there are: shared-memory counters are sized from it (metrics.hpp), and the transport
// table asserts one row for each. Keep it last + 1.
inline constexpr std::size_t transport_count = static_cast<std::size_t>(transport::json) + 1;

}  // namespace keeper::core
