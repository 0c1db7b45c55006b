#pragma once
// xs:dateTime as ASMX writes a UTC DateTime: `Z`, up to 7 fraction digits, trailing zeros dropped.
#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace keeper::core {

using utc_time = std::chrono::sys_time<std::chrono::nanoseconds>;

std::string format_date_time(utc_time t);

// nginx's $msec ("1700000000.123": seconds since 1970, a dot, milliseconds); nullopt when the
// text is not that.
std::optional<std::chrono::system_clock::time_point> parse_epoch_msec(std::string_view text);

}  // namespace keeper::core
