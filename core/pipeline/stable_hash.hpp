#pragma once
// A hash that is the same in every process and every build, unlike std::hash: for the tables the
// pool's processes share in memory (the record of calls in flight, the refused clients), where
// each process must find an entry where another put it. FNV-1a, 64 bits.
#include <cstdint>
#include <string_view>

namespace keeper::core {

constexpr std::uint64_t stable_hash(std::string_view text) {
    std::uint64_t h = 14695981039346656037ULL;
    for (const char c : text) {
        h ^= static_cast<unsigned char>(c);
        h *= 1099511628211ULL;
    }
    return h;
}

}  // namespace keeper::core
