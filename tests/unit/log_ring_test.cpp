// The workers' log ring (pool/log_ring.cpp): records come out whole, in order, in writes of at
// most 4096 bytes cut between records, none lost when the ring fills or threads append at once;
// and what a library prints to C's stderr comes out as records too (pool/log_writer.cpp).
#include <boost/test/unit_test.hpp>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "pool/log_ring.hpp"
#include "pool/log_writer.hpp"

using keeper::pool::log_ring;
using keeper::pool::shared_log_ring;

namespace {

// A socket pair that keeps write boundaries (SOCK_SEQPACKET), so a test sees each write(2).
struct packet_pipe {
    int fds[2] = {-1, -1};
    packet_pipe() {
        BOOST_REQUIRE(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, fds) == 0);
        int size = 8 << 20;
        setsockopt(fds[0], SOL_SOCKET, SO_SNDBUF, &size, sizeof size);
        setsockopt(fds[1], SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
    }
    ~packet_pipe() {
        close(fds[0]);
        close(fds[1]);
    }
    int in() const { return fds[0]; }
    std::vector<std::string> writes() {
        shutdown(fds[0], SHUT_WR);
        std::vector<std::string> out;
        char buf[65536];
        for (ssize_t n; (n = recv(fds[1], buf, sizeof buf, 0)) > 0;) out.emplace_back(buf, static_cast<std::size_t>(n));
        return out;
    }
};

std::vector<std::string> lines_of(const std::vector<std::string>& writes) {
    std::string all;
    for (const auto& w : writes) all += w;
    std::vector<std::string> lines;
    for (std::size_t start = 0, nl; (nl = all.find('\n', start)) != std::string::npos; start = nl + 1) {
        lines.push_back(all.substr(start, nl - start));
    }
    return lines;
}

std::string record(int thread, int i) {
    return "request_id=t" + std::to_string(thread) + "-" + std::to_string(i) + " status=200";
}

}  // namespace

BOOST_AUTO_TEST_SUITE(log_ring_records)

BOOST_AUTO_TEST_CASE(records_come_out_whole_and_in_order) {
    shared_log_ring shared{"the log"};
    packet_pipe out;
    shared.get().append("first", out.in());
    shared.get().append("second record", out.in());
    shared.get().drain(out.in());
    shared.get().drain(out.in());  // nothing more: writes nothing
    const auto writes = out.writes();
    BOOST_TEST(writes.size() == 1u);
    BOOST_TEST(lines_of(writes) == (std::vector<std::string>{"first", "second record"}));
}

BOOST_AUTO_TEST_CASE(a_write_is_at_most_4096_bytes_and_ends_between_records) {
    shared_log_ring shared{"the log"};
    packet_pipe out;
    std::vector<std::string> expected;
    for (int i = 0; i < 500; ++i) {
        expected.push_back(record(0, i) + std::string(static_cast<std::size_t>(i % 97), 'x'));
        shared.get().append(expected.back(), out.in());
    }
    shared.get().drain(out.in());
    const auto writes = out.writes();
    BOOST_TEST(writes.size() > 1u);
    for (const auto& w : writes) {
        BOOST_TEST(w.size() <= 4096u);
        BOOST_TEST(w.back() == '\n');
    }
    BOOST_TEST(lines_of(writes) == expected);
}

BOOST_AUTO_TEST_CASE(a_long_record_is_cut_and_marked) {
    shared_log_ring shared{"the log"};
    packet_pipe out;
    shared.get().append(std::string(5000, 'a'), out.in());
    shared.get().drain(out.in());
    const auto lines = lines_of(out.writes());
    BOOST_REQUIRE(lines.size() == 1u);
    BOOST_TEST(lines[0] == std::string(log_ring::max_record, 'a') + "...");
}

BOOST_AUTO_TEST_CASE(a_full_ring_is_written_out_by_the_appender_and_nothing_is_lost) {
    shared_log_ring shared{"the log"};
    packet_pipe out;
    std::vector<std::string> expected;
    const std::string filler(200, 'f');
    while (expected.size() * filler.size() < 3 * log_ring::capacity) {
        expected.push_back(record(0, static_cast<int>(expected.size())) + filler);
        shared.get().append(expected.back(), out.in());
    }
    shared.get().drain(out.in());
    BOOST_TEST(lines_of(out.writes()) == expected);
}

BOOST_AUTO_TEST_CASE(concurrent_appends_keep_every_record_whole) {
    shared_log_ring shared{"the log"};
    packet_pipe out;
    constexpr int threads = 8, per_thread = 3000;
    std::vector<std::thread> appenders;
    for (int t = 0; t < threads; ++t) {
        appenders.emplace_back([&, t] {
            for (int i = 0; i < per_thread; ++i) shared.get().append(record(t, i), out.in());
        });
    }
    std::thread drainer{[&] {
        for (int i = 0; i < 200; ++i) {
            shared.get().drain(out.in());
            std::this_thread::yield();
        }
    }};
    for (auto& a : appenders) a.join();
    drainer.join();
    shared.get().drain(out.in());
    const auto lines = lines_of(out.writes());
    BOOST_TEST(lines.size() == static_cast<std::size_t>(threads * per_thread));
    std::vector<int> next(threads, 0);  // each thread's records in its own order
    for (const auto& line : lines) {
        const auto dash = line.find('-');
        const int t = std::stoi(line.substr(12, dash - 12));
        BOOST_REQUIRE(line == record(t, next[static_cast<std::size_t>(t)]));
        ++next[static_cast<std::size_t>(t)];
    }
}

BOOST_AUTO_TEST_CASE(what_a_library_prints_to_stderr_becomes_records) {
    // libpq's default notice processor is fprintf(stderr, "%s", message), its message a line or
    // more; here in two pieces, the second line cut between two prints.
    packet_pipe log;
    const int saved_fd = dup(STDERR_FILENO);
    dup2(log.in(), STDERR_FILENO);  // the process's own records go to fd 2 while it has no ring
    FILE* const saved_stream = stderr;
    keeper::pool::log_library_output();
    std::fprintf(stderr, "%s", "WARNING:  terminating connection due to immediate shutdown command\nDETAIL:  one");
    std::fprintf(stderr, "%s", " more line\n\n");
    std::fclose(stderr);
    stderr = saved_stream;
    dup2(saved_fd, STDERR_FILENO);
    close(saved_fd);
    BOOST_TEST(
        lines_of(log.writes()) ==
            (std::vector<std::string>{"library: WARNING:  terminating connection due to immediate shutdown command",
                                      "library: DETAIL:  one more line"}),
        boost::test_tools::per_element());
}

BOOST_AUTO_TEST_SUITE_END()
