#include "core/api/provider.hpp"

#include <array>

namespace keeper::core {
namespace {

constexpr std::array<std::string_view, 16> names{
    "Undefined", "Android", "iOS",       "WindowsPhone", "Bada",      "MacOS",         "BlackBerry", "WindowsRT",
    "Windows8",  "Linux",   "AndroidKM", "Advisor",      "NokiaAsha", "WindowsPhone8", "WebServer",  "WindowsUWP",
};

}  // namespace

std::span<const std::string_view> provider_names() { return names; }

std::string_view provider_name(provider p) { return names.at(static_cast<std::size_t>(p)); }

std::optional<provider> provider_from_name(std::string_view name) {
    for (std::size_t i = 0; i < names.size(); ++i) {
        if (names[i] == name) return static_cast<provider>(i);
    }
    return std::nullopt;
}

}  // namespace keeper::core
