#include "log_writer.hpp"

#include <unistd.h>

#include <cerrno>
#include <string>

#include "log_ring.hpp"

namespace keeper::fcgi {
namespace {

log_ring* process_ring = nullptr;  // set before any thread starts, never changed after

}  // namespace

void use_log_ring(log_ring& ring) { process_ring = &ring; }

void write_log_record(std::string_view record) {
    if (process_ring) {
        process_ring->append(record, STDERR_FILENO);
        return;
    }
    std::string line{record};
    line += '\n';
    const char* data = line.data();
    std::size_t left = line.size();
    while (left > 0) {
        const ssize_t n = write(STDERR_FILENO, data, left);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;  // nowhere to log: the request itself still succeeded
        data += n;
        left -= static_cast<std::size_t>(n);
    }
}

}  // namespace keeper::fcgi
