#pragma once
// xs:dateTime as ASMX writes a UTC DateTime: `Z`, up to 7 fraction digits, trailing zeros dropped.
#include <chrono>
#include <string>

namespace keeper::core {

using utc_time = std::chrono::sys_time<std::chrono::nanoseconds>;

std::string format_date_time(utc_time t);

}  // namespace keeper::core
