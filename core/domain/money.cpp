#include "core/domain/money.hpp"

#include <charconv>
#include <cmath>
#include <stdexcept>

namespace keeper::core {

std::optional<std::string> amount_text(double amount) {
    if (!std::isfinite(amount) || amount <= 0 || amount >= 1e12) return std::nullopt;
    char buf[64];
    // Shortest fixed-point text that round-trips: 0.1 -> "0.1", 10.005 -> "10.005".
    const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, amount, std::chars_format::fixed);
    if (ec != std::errc{}) return std::nullopt;
    const std::string text{buf, end};
    const auto dot = text.find('.');
    if (dot != std::string::npos && text.size() - dot - 1 > 2) return std::nullopt;
    return text;
}

std::int64_t cents(std::string_view decimal) {
    const auto dot = decimal.find('.');
    const auto whole = decimal.substr(0, dot);
    auto frac = dot == std::string_view::npos ? std::string{} : std::string{decimal.substr(dot + 1)};
    if (frac.size() > 2) throw std::invalid_argument("more than 2 decimal places");
    frac.resize(2, '0');
    std::int64_t w = 0, f = 0;
    std::from_chars(whole.data(), whole.data() + whole.size(), w);
    std::from_chars(frac.data(), frac.data() + frac.size(), f);
    return w * 100 + f;
}

}  // namespace keeper::core
