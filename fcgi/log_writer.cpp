#include "log_writer.hpp"

#include <unistd.h>

#include <atomic>
#include <string>

#include "core/pipeline/log_line.hpp"
#include "fd_write.hpp"
#include "log_ring.hpp"

namespace keeper::fcgi {
namespace {

log_ring* process_ring = nullptr;  // set before any thread starts, never changed after
std::atomic<core::log_format_kind> process_format{core::log_format_kind::text};

}  // namespace

void use_log_ring(log_ring& ring) { process_ring = &ring; }

void use_log_format(core::log_format_kind format) { process_format.store(format, std::memory_order_relaxed); }

core::log_format_kind log_format() { return process_format.load(std::memory_order_relaxed); }

void write_log_record(std::string_view record) {
    if (process_ring) {
        process_ring->append(record, STDERR_FILENO);
        return;
    }
    std::string line{record};
    line += '\n';
    write_fully(STDERR_FILENO, line.data(), line.size());
}

void log_event(std::string_view source, std::string_view message) {
    write_log_record(core::format_event(source, message, log_format()));
}

}  // namespace keeper::fcgi
