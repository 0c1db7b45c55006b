// Compiled by ctest twice (tests/CMakeLists.txt): as is it compiles; with KEEPER_TYPO it must
// not, because find_code returns no column "codehash". A misspelt column is a build error, not a
// server fault on some request.
#include "db/store/statements.hpp"

#ifdef KEEPER_TYPO
constexpr auto wanted = keeper::db::statements::find_code.column("codehash");
#else
constexpr auto wanted = keeper::db::statements::find_code.column("code_hash");
#endif

int main() { return wanted.empty() ? 1 : 0; }
