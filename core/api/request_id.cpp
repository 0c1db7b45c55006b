#include "core/api/request_id.hpp"

#include <charconv>

#include "core/api/text_util.hpp"

namespace keeper::core {

std::optional<utc_time> request_id_time(std::string_view id) {
    constexpr std::size_t digits = 13;
    if (id.size() != 32 || !is_lower_hex(id.substr(digits))) return std::nullopt;
    unsigned long long ms = 0;  // unsigned: from_chars takes no sign
    const auto [end, ec] = std::from_chars(id.data(), id.data() + digits, ms);
    if (ec != std::errc{} || end != id.data() + digits) return std::nullopt;
    // 13 digits reach 2286; utc_time's nanoseconds end in 2262.
    constexpr auto last = std::chrono::duration_cast<std::chrono::milliseconds>(utc_time::max().time_since_epoch());
    if (ms > static_cast<unsigned long long>(last.count())) return std::nullopt;
    return utc_time{std::chrono::milliseconds{ms}};
}

}  // namespace keeper::core
