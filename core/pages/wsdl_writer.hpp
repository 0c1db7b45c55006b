#pragma once
// The WSDL 1.1 document of one group, generated from the operation table in ASMX's shape: the
// types schema (wrapper elements, the Provider enumeration where used, the bare int / string /
// dateTime elements of HTTP results), messages, port types, the soap, soap12, HttpGet and
// HttpPost bindings, and a service whose ports point at base_url.
#include <string>
#include <string_view>

#include "core/api/operation.hpp"

namespace keeper::core {

// base_url: the URL the client used for the group, e.g. "http://host:8080/AccountApi.asmx".
std::string write_wsdl(api_group group, std::string_view ns, std::string_view base_url);

// The disco document ASMX serves at ?disco.
std::string write_disco(api_group group, std::string_view ns, std::string_view base_url);

}  // namespace keeper::core
