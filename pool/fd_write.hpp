#pragma once
// One write of a whole buffer to a file descriptor, for the log's two writers: the ring's drain
// (log_ring.hpp) and a worker's own line before it has a ring (log_writer.hpp).
#include <cstddef>

namespace keeper::pool {

// Writes all of data to fd, retrying after signals and partial writes; gives up silently when fd
// takes nothing (nowhere to log: the requests themselves still succeeded).
void write_fully(int fd, const char* data, std::size_t size);

}  // namespace keeper::pool
