#include "log_writer.hpp"

#include <unistd.h>

#include <string>

#include "fd_write.hpp"
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
    write_fully(STDERR_FILENO, line.data(), line.size());
}

}  // namespace keeper::fcgi
