#pragma once
// keeperctl maintain --metrics-file: how the last run went, in Prometheus' text format, for
// node_exporter's textfile collector (docs/operations.md, "Alerts and the dashboard"). The alerts
// KeeperMaintainFailed, KeeperMaintainLate and KeeperHistoryInDefaultPartition read it.
#include <map>
#include <optional>
#include <string>

namespace keeper::db {

struct maintain_outcome {
    bool succeeded = false;
    // Rows each history table's default partition held when the run began; empty when the run
    // failed before it could look.
    std::map<std::string, long long> default_rows;
};

// Replaces the file at once (a reader never sees half of it), readable by all; the time of the
// last successful run is kept from the file it replaces when this run failed.
void write_maintain_metrics(const std::string& path, const maintain_outcome& outcome);

}  // namespace keeper::db
