#pragma once
// "/AccountApi.asmx" or "/AccountApi.asmx/CheckSessionEx" → group and operation name. Anything
// before the group segment is the deployment's base path and is kept for WSDL addresses.
#include <optional>
#include <string>
#include <string_view>

#include "core/api/operation.hpp"

namespace keeper::core {

struct endpoint_path {
    api_group group;
    std::string group_path;                     // the path up to and including ".asmx"
    std::optional<std::string> operation_name;  // present for ".asmx/Name"
};

std::optional<endpoint_path> parse_endpoint_path(std::string_view path);

}  // namespace keeper::core
