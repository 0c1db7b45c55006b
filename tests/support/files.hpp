#pragma once
// A file's whole text, for the tests that read the tree's files and the stack's logs ("" when it
// cannot be read).
#include <fstream>
#include <iterator>
#include <string>

namespace keeper::test {

inline std::string read_file(const std::string& path) {
    std::ifstream in{path, std::ios::binary};
    return {std::istreambuf_iterator<char>{in}, {}};
}

}  // namespace keeper::test
