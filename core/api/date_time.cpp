#include "core/api/date_time.hpp"

#include <charconv>
#include <cstdint>
#include <cstdio>

namespace keeper::core {

std::string format_date_time(utc_time t) {
    using namespace std::chrono;
    // .NET ticks are 100 ns: keep 7 digits, then drop trailing zeros (format "FFFFFFF").
    const auto ticks = floor<duration<std::int64_t, std::ratio<1, 10'000'000>>>(t);
    const auto day = floor<days>(ticks);
    const year_month_day ymd{day};
    const hh_mm_ss hms{ticks - day};
    char buf[48];
    std::snprintf(buf, sizeof buf, "%04d-%02u-%02uT%02d:%02d:%02d", static_cast<int>(ymd.year()),
                  static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()),
                  static_cast<int>(hms.hours().count()), static_cast<int>(hms.minutes().count()),
                  static_cast<int>(hms.seconds().count()));
    std::string out = buf;
    auto fraction = hms.subseconds().count();
    if (fraction != 0) {
        char digits[16];
        std::snprintf(digits, sizeof digits, ".%07lld", static_cast<long long>(fraction));
        std::string f = digits;
        while (f.back() == '0') f.pop_back();
        out += f;
    }
    out += 'Z';
    return out;
}

std::optional<std::chrono::system_clock::time_point> parse_epoch_msec(std::string_view text) {
    const auto dot = text.find('.');
    if (dot == std::string_view::npos || text.size() - dot != 4) return std::nullopt;
    std::int64_t seconds = 0, ms = 0;
    const auto whole = std::from_chars(text.data(), text.data() + dot, seconds);
    const auto part = std::from_chars(text.data() + dot + 1, text.data() + text.size(), ms);
    if (whole.ec != std::errc{} || whole.ptr != text.data() + dot || part.ec != std::errc{} ||
        part.ptr != text.data() + text.size() || seconds < 0 || ms < 0) {
        return std::nullopt;
    }
    return std::chrono::system_clock::time_point{std::chrono::seconds{seconds} + std::chrono::milliseconds{ms}};
}

}  // namespace keeper::core
