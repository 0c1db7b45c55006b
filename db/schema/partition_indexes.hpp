#pragma once
// Indexes of the partitioned history built without stopping its writes (docs/schema.md, "Indexes
// on the history"). A migration declares a new index on a partitioned table with
// CREATE INDEX ... ON ONLY <parent>: that is instant and leaves the parent's index invalid, while
// partitions made afterwards get their share at once. Building the existing partitions' shares
// inside the migration's transaction would hold a lock that stops every insert for as long as the
// build takes (minutes per month of history at production size), so this builds each one with
// CREATE INDEX CONCURRENTLY, outside any transaction, and attaches it to the parent's index; the
// last attach makes the parent's index valid. keeperctl migrate runs it after every migration it
// applies (so the next migration may rely on the index), keeperctl maintain at the start of every
// run (so an interrupted build is finished).
#include <ostream>
#include <pqxx/pqxx>

namespace keeper::db {

// Builds and attaches every missing partition share of the invalid partitioned indexes in the
// current schema, reporting each with its time to out; a share a broken run left invalid is
// dropped and built again. Returns how many it built. Needs to own the partitions (or be a member
// of their owner's role).
int build_partition_indexes(pqxx::connection_base& conn, std::ostream& out);

}  // namespace keeper::db
