#include "core/api/date_time.hpp"

#include <charconv>
#include <cstdint>

namespace keeper::core {

namespace {

// Writes n as exactly `width` decimal digits, zero-padded, ending just before `end`.
void put_digits(char* end, unsigned n, int width) {
    for (int i = 0; i < width; ++i, n /= 10) *--end = static_cast<char>('0' + n % 10);
}

}  // namespace

// By hand rather than by snprintf: every time in a result is written here, and
// two formatted prints cost ten times these digit loops.
std::string format_date_time(utc_time t) {
    using namespace std::chrono;
    // .NET ticks are 100 ns: keep 7 digits, then drop trailing zeros (format "FFFFFFF").
    const auto ticks = floor<duration<std::int64_t, std::ratio<1, 10'000'000>>>(t);
    const auto day = floor<days>(ticks);
    const year_month_day ymd{day};
    const hh_mm_ss hms{ticks - day};
    // utc_time counts nanoseconds in 64 bits: its years are 1677 to 2262, always four digits.
    char buf[] = "0000-00-00T00:00:00.0000000Z";
    put_digits(buf + 4, static_cast<unsigned>(static_cast<int>(ymd.year())), 4);
    put_digits(buf + 7, static_cast<unsigned>(ymd.month()), 2);
    put_digits(buf + 10, static_cast<unsigned>(ymd.day()), 2);
    put_digits(buf + 13, static_cast<unsigned>(hms.hours().count()), 2);
    put_digits(buf + 16, static_cast<unsigned>(hms.minutes().count()), 2);
    put_digits(buf + 19, static_cast<unsigned>(hms.seconds().count()), 2);
    std::size_t size = 19;
    if (const auto fraction = static_cast<unsigned>(hms.subseconds().count()); fraction != 0) {
        put_digits(buf + 27, fraction, 7);
        size = 27;
        while (buf[size - 1] == '0') --size;
    }
    buf[size++] = 'Z';
    return std::string(buf, size);
}

}  // namespace keeper::core
