#pragma once
#include <string_view>

namespace keeper::core {

// How a call arrived. `none` is for requests refused before a transport was known.
enum class transport { none, soap11, soap12, http_get, http_post };

std::string_view transport_name(transport t);

}  // namespace keeper::core
