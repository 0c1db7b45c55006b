#include "fd_write.hpp"

#include <unistd.h>

#include <cerrno>

namespace keeper::pool {

void write_fully(int fd, const char* data, std::size_t size) {
    while (size > 0) {
        const ssize_t n = write(fd, data, size);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;
        data += n;
        size -= static_cast<std::size_t>(n);
    }
}

}  // namespace keeper::pool
