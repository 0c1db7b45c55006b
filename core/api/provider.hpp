#pragma once
// The Provider enumeration (docs/api.md): names and order are part of the published interface.
#include <optional>
#include <span>
#include <string_view>

namespace keeper::core {

enum class provider {
    Undefined,
    Android,
    iOS,
    WindowsPhone,
    Bada,
    MacOS,
    BlackBerry,
    WindowsRT,
    Windows8,
    Linux,
    AndroidKM,
    Advisor,
    NokiaAsha,
    WindowsPhone8,
    WebServer,
    WindowsUWP,
};

// All names, in declaration order (WSDL and help pages list them from here).
std::span<const std::string_view> provider_names();
std::string_view provider_name(provider p);
// Exact, case-sensitive match, as XmlSerializer does.
std::optional<provider> provider_from_name(std::string_view name);

}  // namespace keeper::core
