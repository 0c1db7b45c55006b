#include "stalling_proxy.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <array>
#include <cstring>
#include <sstream>
#include <stdexcept>

namespace keeper::test {
namespace {

// The last value of key in a key=value libpq string (a later one wins, as in libpq).
std::string param(const std::string& url, const std::string& key, const std::string& otherwise) {
    std::istringstream words{url};
    std::string word;
    std::string found = otherwise;
    while (words >> word) {
        if (word.rfind(key + "=", 0) == 0) found = word.substr(key.size() + 1);
    }
    return found;
}

// url without host and port, then the proxy's.
std::string through(const std::string& url, int port) {
    std::istringstream words{url};
    std::string word;
    std::string out;
    while (words >> word) {
        if (word.rfind("host=", 0) != 0 && word.rfind("port=", 0) != 0) out += word + " ";
    }
    return out + "host=127.0.0.1 port=" + std::to_string(port);
}

bool read_exactly(int fd, char* into, std::size_t n) {
    while (n > 0) {
        const auto got = ::read(fd, into, n);
        if (got <= 0) return false;
        into += got;
        n -= static_cast<std::size_t>(got);
    }
    return true;
}

bool write_all(int fd, const char* from, std::size_t n) {
    while (n > 0) {
        const auto put = ::send(fd, from, n, MSG_NOSIGNAL);
        if (put <= 0) return false;
        from += put;
        n -= static_cast<std::size_t>(put);
    }
    return true;
}

// PostgreSQL's startup packets begin with a length and a code; a cancel request is 16 bytes.
bool is_cancel_request(const std::array<char, 8>& head) {
    std::uint32_t length = 0;
    std::uint32_t code = 0;
    std::memcpy(&length, head.data(), 4);
    std::memcpy(&code, head.data() + 4, 4);
    return ntohl(length) == 16 && ntohl(code) == 80877102;
}

}  // namespace

stalling_proxy::stalling_proxy(const std::string& database_url, holds what) : m_what(what) {
    m_socket_path =
        param(database_url, "host", "/var/run/postgresql") + "/.s.PGSQL." + param(database_url, "port", "5432");
    m_listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (m_listener < 0 || ::bind(m_listener, reinterpret_cast<sockaddr*>(&addr), len) != 0 ||
        ::listen(m_listener, 64) != 0 || ::getsockname(m_listener, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
        throw std::runtime_error("stalling_proxy: cannot listen on 127.0.0.1");
    }
    m_url = through(database_url, ntohs(addr.sin_port));
    m_acceptor = std::thread{[this] { accept_loop(); }};
}

stalling_proxy::~stalling_proxy() {
    m_stopping = true;
    ::shutdown(m_listener, SHUT_RDWR);
    m_acceptor.join();
    {
        std::lock_guard lock{m_mutex};
        for (int fd : m_open) ::shutdown(fd, SHUT_RDWR);
    }
    for (auto& t : m_threads) t.join();
    for (int fd : m_open) ::close(fd);
    ::close(m_listener);
}

void stalling_proxy::accept_loop() {
    while (!m_stopping) {
        const int client = ::accept4(m_listener, nullptr, nullptr, SOCK_CLOEXEC);
        if (client < 0) return;
        std::lock_guard lock{m_mutex};
        m_open.push_back(client);
        if (m_what == holds::every_connection) {
            ++m_held;  // accepted, never read or answered
            continue;
        }
        m_threads.emplace_back([this, client] { serve(client); });
    }
}

void stalling_proxy::serve(int client) {
    std::array<char, 8> head{};
    if (!read_exactly(client, head.data(), head.size())) return;
    if (is_cancel_request(head)) {
        std::array<char, 8> key{};  // the backend's pid and secret: read, so that only a close wakes the poll
        if (!read_exactly(client, key.data(), key.size())) return;
        ++m_held;  // never passed on: the sender waits for the server to close it
        pollfd until_closed{client, POLLIN, 0};
        ::poll(&until_closed, 1, static_cast<int>(std::chrono::milliseconds{cancel_hold}.count()));
        ::shutdown(client, SHUT_RDWR);
        return;
    }
    const int server = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    {
        std::lock_guard lock{m_mutex};
        m_open.push_back(server);
    }
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, m_socket_path.c_str(), sizeof addr.sun_path - 1);
    if (::connect(server, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) return;
    if (!write_all(server, head.data(), head.size())) return;
    std::array<pollfd, 2> ends{pollfd{client, POLLIN, 0}, pollfd{server, POLLIN, 0}};
    std::array<char, 16384> buf{};
    while (!m_stopping && ::poll(ends.data(), ends.size(), -1) > 0) {
        for (std::size_t i = 0; i < ends.size(); ++i) {
            if (ends[i].revents == 0) continue;
            const auto got = ::read(ends[i].fd, buf.data(), buf.size());
            if (got <= 0 || !write_all(ends[1 - i].fd, buf.data(), static_cast<std::size_t>(got))) {
                ::shutdown(ends[1 - i].fd, SHUT_RDWR);
                return;
            }
        }
    }
}

}  // namespace keeper::test
