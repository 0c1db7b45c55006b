#pragma once
// keeperctl maintain: the data lifecycle in one idempotent run (docs/schema.md, "Maintenance").
//  0. the history's indexes that a migration declared and an interrupted keeperctl migrate left
//     unbuilt on some partitions are built there (partition_indexes.hpp);
//  1. rows that landed in a default partition (no monthly partition existed for them) are moved
//     into partitions of their own, so pg_partman can go on creating partitions;
//  2. pg_partman creates the partitions ahead and applies retention from the configuration
//     (drop, or only detach for archiving, the months older than the limit);
//  3. expired sessions past their linger time, and auth_failures and app_auth_failures older
//     than their throttle's window, are deleted in short batches.
// Every step runs with a short lock_timeout and in transactions of its own: maintenance may fail
// and be retried, but never makes a call wait long. Two runs at once: the second finds the
// advisory lock taken and does nothing.
#include <ostream>
#include <pqxx/pqxx>

#include "core/api/settings.hpp"
#include "keeperctl/maintain_metrics.hpp"

namespace keeper::db {

// Returns 0 when every step succeeded, 1 when one failed (the others still ran), reporting each
// step to out and, when asked, the run's outcome to `outcome`.
int maintain(pqxx::connection_base& conn, const core::settings& cfg, std::ostream& out,
             maintain_outcome* outcome = nullptr);

}  // namespace keeper::db
