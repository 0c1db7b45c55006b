#pragma once
// GET on a group's .asmx: the HTML page listing its operations (and, as they are added, ?WSDL,
// ?disco and ?op= pages), all generated from the operation table.
#include "core/wire/endpoint_path.hpp"
#include "core/api/http_message.hpp"
#include "core/api/settings.hpp"

namespace keeper::core {

http_response service_page(const http_request& request, const endpoint_path& ep, const settings& cfg);

// GET /openapi: Swagger UI over /openapi.json, to browse the JSON calls and try them. Served where
// the test form is (the `test_form` setting: this host only by default), else 403. Its script and
// style sheet are swagger-ui-dist's, served by nginx from usr/share/keeper/openapi-ui.
http_response openapi_page(const http_request& request, const settings& cfg);

}  // namespace keeper::core
