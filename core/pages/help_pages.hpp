#pragma once
// The HTML pages ASMX serves for people: the group's operation list and, per operation, the test
// form and a sample request and response for every transport of the transport table.
#include <string>
#include <string_view>

#include "core/api/operation.hpp"

namespace keeper::core {

// group_path: the path the client used, e.g. "/AccountApi.asmx"; host for the sample requests.
std::string group_page(api_group group, std::string_view group_path);

struct operation_page_options {
    std::string_view group_path;
    std::string_view host;
    std::string_view ns;
    // The form that calls the operation over HTTP POST, its answer shown beneath (settings
    // test_form decides who gets it; the others read why it is missing).
    bool test_form = false;
};
std::string operation_page(const operation& op, const operation_page_options& options);

}  // namespace keeper::core
