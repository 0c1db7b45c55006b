#pragma once
// What a table the pool's processes share in memory (the record of calls in flight, the refused
// clients) stores its keys and times by: a hash that is the same in every process and every build,
// unlike std::hash, so that each process finds an entry where another put it (FNV-1a, 64 bits);
// and times as nanoseconds of the steady clock, the system's monotonic clock, one for every process.
#include <chrono>
#include <cstdint>
#include <string_view>

namespace keeper::pool {

constexpr std::uint64_t stable_hash(std::string_view text) {
    std::uint64_t h = 14695981039346656037ULL;
    for (const char c : text) {
        h ^= static_cast<unsigned char>(c);
        h *= 1099511628211ULL;
    }
    return h;
}

inline std::int64_t steady_ns(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
}

}  // namespace keeper::pool
