#pragma once
// An enum's names as one table, in the order of its values (which count from 0), where a switch
// would spell a case and a return per value. Where a table is written, a static_assert ties its
// length to the enum's last value, and the enum's comment names the table to extend.
#include <array>
#include <cstddef>
#include <string_view>

namespace keeper::core {

template <typename E, std::size_t N>
struct enum_names {
    std::array<std::string_view, N> names;

    constexpr std::string_view operator[](E value) const { return names.at(static_cast<std::size_t>(value)); }
    // Whether the table names every value up to `last`, and no more.
    constexpr bool ends_at(E last) const { return N == static_cast<std::size_t>(last) + 1; }
};

}  // namespace keeper::core
