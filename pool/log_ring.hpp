#pragma once
// A worker's log records, buffered in memory the worker shares with its supervisor. The serving
// threads append whole records (no system call: a request's log line costs a memcpy); the
// supervisor writes them out every few milliseconds, and once more after the worker has exited,
// however it exited, so a crash loses no line a request already logged. Only the supervisor
// writes, in whole records of at most 4096 bytes a write, so records of different workers never
// interleave, also on a pipe or the journal's stream socket, and workers never contend on the
// log file's lock.
#include <cstddef>
#include <string_view>

#include "process_shared_mutex.hpp"
#include "shared_memory.hpp"

namespace keeper::pool {

class log_ring {
public:
    static constexpr std::size_t capacity = 256 * 1024;
    static constexpr std::size_t max_record = 2048;  // longer records are cut (and marked)

    log_ring() = default;  // in the shared mapping, before fork
    log_ring(const log_ring&) = delete;
    log_ring& operator=(const log_ring&) = delete;

    // Worker: appends record and a newline. When the ring is full (the supervisor is behind), writes
    // what it holds to fd itself first: slower, never lost.
    void append(std::string_view record, int fd);

    // Writes every record held to fd, in order, and empties the ring.
    void drain(int fd);

private:
    void write_out_locked(int fd);

    // Taken over from a worker that died holding it: what that worker appended whole is counted in
    // m_used, a half-copied record is not.
    process_shared_mutex m_mutex;
    std::size_t m_used = 0;  // advanced only after a record is copied whole
    char m_data[capacity];
};

// A log_ring in anonymous shared memory, mapped by the supervisor for one worker.
using shared_log_ring = in_shared_memory<log_ring>;

}  // namespace keeper::pool
