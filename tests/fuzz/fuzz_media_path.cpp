// The Content-Type parser and the endpoint path parser.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/wire/endpoint_path.hpp"
#include "core/wire/media_type.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text{reinterpret_cast<const char*>(data), size};
    (void)keeper::core::parse_media_type(text);
    (void)keeper::core::parse_endpoint_path(text);
    return 0;
}
