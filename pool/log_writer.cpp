#include "log_writer.hpp"

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <string>

#include "core/pipeline/log_line.hpp"
#include "fd_write.hpp"
#include "log_ring.hpp"

namespace keeper::pool {
namespace {

log_ring* process_ring = nullptr;  // set before any thread starts, never changed after
std::atomic<core::log_format_kind> process_format{core::log_format_kind::text};

// The library stream's part of a line not yet ended. stdio holds the stream's lock while it calls
// the write function, so one thread at a time touches it.
std::string library_line;

ssize_t write_library_output(void*, const char* data, std::size_t size) {
    library_line.append(data, size);
    for (auto end = library_line.find('\n'); end != std::string::npos; end = library_line.find('\n')) {
        if (end > 0) log_event("library", std::string_view{library_line}.substr(0, end));
        library_line.erase(0, end + 1);
    }
    return static_cast<ssize_t>(size);
}

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

void log_library_output() {
    static constexpr cookie_io_functions_t io{
        .read = nullptr, .write = write_library_output, .seek = nullptr, .close = nullptr};
    // glibc documents stderr as a variable a program may set (its manual, "Standard Streams").
    if (FILE* stream = fopencookie(nullptr, "w", io)) {
        std::setvbuf(stream, nullptr, _IOLBF, 0);
        stderr = stream;
    }
}

}  // namespace keeper::pool
