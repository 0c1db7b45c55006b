#pragma once
// GET on a group's .asmx: the HTML page listing its operations (and, as they are added, ?WSDL,
// ?disco and ?op= pages), all generated from the operation table.
#include "core/wire/endpoint_path.hpp"
#include "core/api/http_message.hpp"
#include "core/api/settings.hpp"

namespace keeper::core {

http_response service_page(const http_request& request, const endpoint_path& ep, const settings& cfg);

}  // namespace keeper::core
