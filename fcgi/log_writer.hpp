#pragma once
// Where a worker's log records go: into its log_ring (log_ring.hpp) once the supervisor gave it
// one, else straight to stderr with a single write(2), newline included, so records never
// interleave.
#include <cstddef>
#include <string_view>

namespace keeper::fcgi {

class log_ring;

// Called once in a worker, before its threads start.
void use_log_ring(log_ring& ring);

void write_log_record(std::string_view record);

}  // namespace keeper::fcgi
