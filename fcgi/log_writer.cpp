#include "log_writer.hpp"

#include <unistd.h>

#include <cerrno>

namespace keeper::fcgi {

void write_log_record(std::string record) {
    record += '\n';
    const char* data = record.data();
    std::size_t left = record.size();
    while (left > 0) {
        const ssize_t n = write(STDERR_FILENO, data, left);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;  // nowhere to log: the request itself still succeeded
        data += n;
        left -= static_cast<std::size_t>(n);
    }
}

}  // namespace keeper::fcgi
