#include "keeperctl/maintain_metrics.hpp"

#include <sys/stat.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace keeper::db {
namespace {

constexpr const char* last_success = "keeper_maintain_last_success_timestamp_seconds";

// The value of `name` in an earlier file, if it has one.
std::optional<std::string> earlier_value(const std::string& path, const std::string& name) {
    std::ifstream in{path};
    for (std::string line; std::getline(in, line);) {
        if (line.rfind(name + " ", 0) == 0) return line.substr(name.size() + 1);
    }
    return std::nullopt;
}

void gauge(std::ostream& out, const std::string& name, const std::string& help, const std::string& value) {
    out << "# HELP " << name << " " << help << "\n# TYPE " << name << " gauge\n" << name << " " << value << "\n";
}

}  // namespace

void write_maintain_metrics(const std::string& path, const maintain_outcome& outcome) {
    const auto now = std::to_string(
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count());
    std::ostringstream text;
    gauge(text, "keeper_maintain_last_run_timestamp_seconds", "When keeperctl maintain last finished a run.", now);
    gauge(text, "keeper_maintain_last_run_success", "1 when the last run did every step, 0 when a step failed.",
          outcome.succeeded ? "1" : "0");
    if (const auto kept = outcome.succeeded ? std::optional{now} : earlier_value(path, last_success)) {
        gauge(text, last_success, "When a run last did every step.", *kept);
    }
    if (!outcome.default_rows.empty()) {
        const std::string name = "keeper_history_default_partition_rows";
        text << "# HELP " << name
             << " Rows a history table's default partition held when the last run began "
                "(no monthly partition existed for them; the run moves them out).\n# TYPE "
             << name << " gauge\n";
        for (const auto& [table, rows] : outcome.default_rows)
            text << name << "{table=\"" << table << "\"} " << rows << "\n";
    }
    const auto temporary = path + ".tmp";
    {
        std::ofstream out{temporary, std::ios::trunc};
        out << text.str();
        if (!out.flush()) throw std::runtime_error("cannot write " + temporary);
    }
    chmod(temporary.c_str(), 0644);  // node_exporter runs as another user
    if (std::rename(temporary.c_str(), path.c_str()) != 0) throw std::runtime_error("cannot replace " + path);
}

}  // namespace keeper::db
