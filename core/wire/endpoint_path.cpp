#include "core/wire/endpoint_path.hpp"

#include "core/domain/operation_table.hpp"

namespace keeper::core {

std::optional<endpoint_path> parse_endpoint_path(std::string_view path) {
    constexpr std::string_view suffix = ".asmx";
    const auto at = path.find(suffix);
    if (at == std::string_view::npos) return std::nullopt;
    const auto slash = path.rfind('/', at);
    if (slash == std::string_view::npos) return std::nullopt;
    const auto group = group_from_name(path.substr(slash + 1, at - slash - 1));
    if (!group) return std::nullopt;
    endpoint_path out{*group, std::string{path.substr(0, at + suffix.size())}, std::nullopt};
    const auto rest = path.substr(at + suffix.size());
    if (rest.empty()) return out;
    if (rest.front() != '/' || rest.find('/', 1) != std::string_view::npos) return std::nullopt;
    out.operation_name = std::string{rest.substr(1)};
    return out;
}

}  // namespace keeper::core
