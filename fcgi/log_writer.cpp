#include "log_writer.hpp"

#include <unistd.h>

#include <cerrno>
#include <string>

#include "log_ring.hpp"

namespace keeper::fcgi {
namespace {

log_ring* process_ring = nullptr;  // set before any thread starts, never changed after

}  // namespace

void write_fully(int fd, const char* data, std::size_t size) {
    while (size > 0) {
        const ssize_t n = write(fd, data, size);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;
        data += n;
        size -= static_cast<std::size_t>(n);
    }
}

void use_log_ring(log_ring& ring) { process_ring = &ring; }

void write_log_record(std::string_view record) {
    if (process_ring) {
        process_ring->append(record, STDERR_FILENO);
        return;
    }
    std::string line{record};
    line += '\n';
    write_fully(STDERR_FILENO, line.data(), line.size());
}

}  // namespace keeper::fcgi
