#pragma once
// Sample requests and responses of an operation with ASMX's placeholders ("string", "int",
// "Undefined or Android or ..."), one per transport: the help pages and the generated API
// reference show them (each transport's row in transport_table.cpp names its sample).
#include <string>
#include <string_view>
#include <vector>

#include "core/api/operation.hpp"

namespace keeper::core {

struct sample_exchange {
    std::string request_line;  // "POST /AccountApi.asmx" (without " HTTP/1.1")
    std::vector<std::string>
        request_headers;       // after Host, in ASMX's order; "Content-Length: length" where ASMX shows it
    std::string request_body;  // empty when there is none
    std::string response_content_type;
    std::string response_body;
};

std::string sample_placeholder(param_type t);

sample_exchange sample_soap11(const operation& op, std::string_view group_path, std::string_view ns);
sample_exchange sample_soap12(const operation& op, std::string_view group_path, std::string_view ns);
sample_exchange sample_http_get(const operation& op, std::string_view group_path, std::string_view ns);
sample_exchange sample_http_post(const operation& op, std::string_view group_path, std::string_view ns);
sample_exchange sample_json(const operation& op, std::string_view group_path, std::string_view ns);

}  // namespace keeper::core
