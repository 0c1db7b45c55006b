#include "db/store/proc_stat.hpp"

#include <fstream>
#include <iterator>
#include <sstream>

namespace keeper::db {

std::optional<std::vector<std::string>> proc_stat_fields(long pid) {
    std::ifstream stat{"/proc/" + std::to_string(pid) + "/stat"};
    std::string line;
    if (!std::getline(stat, line)) return std::nullopt;
    const auto paren = line.rfind(')');
    if (paren == std::string::npos) return std::nullopt;
    std::istringstream rest{line.substr(paren + 1)};
    return std::vector<std::string>{std::istream_iterator<std::string>{rest}, {}};
}

}  // namespace keeper::db
