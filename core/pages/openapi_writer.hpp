#pragma once
// The JSON transport described as OpenAPI 3.1, generated from the operation table: GET
// /openapi.json and `keeperctl openapi` (docs/openapi.json, which a test keeps equal to this).
// docs/api-decisions.md, "OpenAPI", says which choices it makes and why.
#include <string>

namespace keeper::core {

std::string write_openapi();

}  // namespace keeper::core
