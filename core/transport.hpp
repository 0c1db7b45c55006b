#pragma once
#include <cstddef>
#include <string_view>

namespace keeper::core {

// How a call arrived. `none` is for requests refused before a transport was known.
enum class transport { none, soap11, soap12, http_get, http_post };
// How many there are: shared-memory counters are sized from it (metrics.hpp). Keep it last + 1.
inline constexpr std::size_t transport_count = static_cast<std::size_t>(transport::http_post) + 1;

std::string_view transport_name(transport t);

}  // namespace keeper::core
