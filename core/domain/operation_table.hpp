#pragma once
// THE table of operations. Dispatch over every transport, WSDL, help pages and docs iterate it;
// adding an operation is adding one entry in operation_table.cpp.
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "core/api/operation.hpp"

namespace keeper::core {

const std::vector<operation>& operations();
std::span<const api_group> all_groups();

const operation* find_operation(api_group group, std::string_view name);
std::optional<api_group> group_from_name(std::string_view name);  // "AccountApi" -> account

}  // namespace keeper::core
