#pragma once
// Amounts arrive as xs:double but are money: keeper turns them into exact decimal text at once and
// never computes with the double again. PostgreSQL adds them as NUMERIC.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace keeper::core {

// The shortest decimal text that reads back as exactly this double ("12.5", "0.01"), if it is
// finite, > 0 and has at most 2 decimal places; otherwise nullopt.
std::optional<std::string> amount_text(double amount);

// Cents of a decimal text with at most 2 decimal places ("15000" -> 1500000).
std::int64_t cents(std::string_view decimal);

}  // namespace keeper::core
