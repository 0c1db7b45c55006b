#pragma once
// docs/api.md, generated from the operation table (keeperctl api-reference). A test
// keeps the committed file equal to this output.
#include <string>

namespace keeper::core {

std::string write_api_reference();

}  // namespace keeper::core
