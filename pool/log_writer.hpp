#pragma once
// Where a process's log records go: into its log_ring (log_ring.hpp) once the supervisor gave it
// one, else straight to stderr with a single write(2), newline included, so records never
// interleave. Records are written in the configured log_format (core/pipeline/log_line.hpp).
#include <cstddef>
#include <string_view>

#include "core/api/settings.hpp"

namespace keeper::pool {

class log_ring;

// Called once in a worker, before its threads start.
void use_log_ring(log_ring& ring);

// The format of this process's records from now on: set by the supervisor once the configuration
// is read (and again on a reload); a worker inherits it. Before that, text.
void use_log_format(core::log_format_kind format);
core::log_format_kind log_format();

void write_log_record(std::string_view record);

// An event of the pool (source "pool", "keeper-fcgi", "worker") as one record.
void log_event(std::string_view source, std::string_view message);

// From now on, what any library prints to C's stderr becomes records too, a line each as an event of
// source "library". libpq prints its notices there (its default notice processor), and libpqxx 6
// replaces that processor only once a connection is open: a notice sent while one opens (a server
// stopping at that moment sends "terminating connection due to immediate shutdown command") was a
// raw line among the records. Writes to fd 2 itself (the log ring's own) are not affected. Called
// once, before the workers fork; they inherit it.
void log_library_output();

}  // namespace keeper::pool
