#pragma once
// The HTML pages ASMX serves for people: the group's operation list and, per operation, sample
// SOAP 1.1, SOAP 1.2, HTTP GET and HTTP POST requests and responses. Generated from the table.
#include <string>
#include <string_view>

#include "operation.hpp"

namespace keeper::core {

// group_path: the path the client used, e.g. "/AccountApi.asmx"; host for the sample requests.
std::string group_page(api_group group, std::string_view group_path);
std::string operation_page(const operation& op, std::string_view group_path, std::string_view host, std::string_view ns);

}  // namespace keeper::core
