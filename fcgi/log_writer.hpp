#pragma once
// Writes one log record to stderr (a file, a pipe or the journal's stream) with a single write(2),
// its newline included, so records of concurrent threads and worker processes never interleave
// and nothing waits in a user-space buffer when the process ends.
#include <string>

namespace keeper::fcgi {

void write_log_record(std::string record);

}  // namespace keeper::fcgi
