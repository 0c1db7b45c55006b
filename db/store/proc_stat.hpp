#pragma once
// A process's line of /proc/<pid>/stat (proc(5)), split into its fields after the command name,
// which may hold spaces and parentheses: [0] is field 3 (state), so field N is [N - 3]. Read for a
// worker's start time, which names its database connections (backend_ending.cpp), and by /metrics'
// process_* series (pool/process_probe.cpp): here, the lower of its two users' homes.
#include <optional>
#include <string>
#include <vector>

namespace keeper::db {

// nullopt when there is no such process (or it went while being read).
std::optional<std::vector<std::string>> proc_stat_fields(long pid);

}  // namespace keeper::db
