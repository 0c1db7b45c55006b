#pragma once
// GetErrorDesc's texts: every result code in English and Russian.
#include <string>

namespace keeper::core {

inline constexpr int culture_english = 1033;
inline constexpr int culture_russian = 1049;

// Never fails: unknown codes and cultures get a text too (docs/api.md, GetErrorDesc).
std::string describe_error(int code, int culture);

}  // namespace keeper::core
