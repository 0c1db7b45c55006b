#include "log_ring.hpp"

#include <algorithm>
#include <cstring>

#include "fd_write.hpp"

namespace keeper::pool {
namespace {

constexpr std::size_t atomic_write = 4096;  // PIPE_BUF: one write this size reaches a pipe whole

// Writes records (each ending in '\n') in writes of at most atomic_write bytes, cut after a record.
void write_records(int fd, const char* data, std::size_t size) {
    for (std::size_t start = 0; start < size;) {
        std::size_t end = std::min(size, start + atomic_write);
        if (end < size) {
            const auto* newline = static_cast<const char*>(memrchr(data + start, '\n', end - start));
            end = static_cast<std::size_t>(newline - data) + 1;  // a record is shorter than atomic_write
        }
        write_fully(fd, data + start, end - start);
        start = end;
    }
}

}  // namespace

void log_ring::append(std::string_view record, int fd) {
    const bool cut = record.size() > max_record;
    if (cut) record = record.substr(0, max_record);
    const std::string_view tail = cut ? "...\n" : "\n";
    m_mutex.lock();
    if (m_used + record.size() + tail.size() > capacity) write_out_locked(fd);
    std::memcpy(m_data + m_used, record.data(), record.size());
    std::memcpy(m_data + m_used + record.size(), tail.data(), tail.size());
    m_used += record.size() + tail.size();
    m_mutex.unlock();
}

void log_ring::drain(int fd) {
    // Written under the lock, so batches leave in the order their records came, also when an
    // appender found the ring full and wrote it out itself. Appenders wait only while the
    // supervisor writes (every 20 ms, a few kilobytes).
    m_mutex.lock();
    write_out_locked(fd);
    m_mutex.unlock();
}

void log_ring::write_out_locked(int fd) {
    write_records(fd, m_data, m_used);
    m_used = 0;
}

}  // namespace keeper::pool
