#include "http_client.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace keeper::test {
namespace {

class socket_fd {
public:
    socket_fd() : m_fd(::socket(AF_INET, SOCK_STREAM, 0)) {
        if (m_fd < 0) throw std::runtime_error("socket() failed");
    }
    ~socket_fd() { ::close(m_fd); }
    socket_fd(const socket_fd&) = delete;
    socket_fd& operator=(const socket_fd&) = delete;
    int get() const { return m_fd; }

private:
    int m_fd;
};

std::string lower(std::string s) {
    for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

void send_all(int fd, const std::string& data) {
    for (std::size_t sent = 0; sent < data.size();) {
        const auto n = ::send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
        if (n <= 0) return;  // the server may refuse early (413): read what it said
        sent += static_cast<std::size_t>(n);
    }
}

std::string receive_all(int fd) {
    std::string out;
    char buf[16384];
    while (true) {
        const auto n = ::recv(fd, buf, sizeof buf, 0);
        if (n <= 0) break;
        out.append(buf, static_cast<std::size_t>(n));
    }
    return out;
}

http_reply parse(const std::string& raw) {
    const auto head_end = raw.find("\r\n\r\n");
    if (head_end == std::string::npos) throw std::runtime_error("no HTTP response head in: " + raw.substr(0, 200));
    http_reply reply;
    reply.status = std::stoi(raw.substr(raw.find(' ') + 1, 3));
    std::size_t pos = raw.find("\r\n") + 2;
    while (pos < head_end) {
        const auto eol = raw.find("\r\n", pos);
        const auto line = raw.substr(pos, eol - pos);
        const auto colon = line.find(':');
        if (colon != std::string::npos) {
            auto value = line.substr(colon + 1);
            value.erase(0, value.find_first_not_of(' '));
            reply.headers[lower(line.substr(0, colon))] = value;
        }
        pos = eol + 2;
    }
    reply.body = raw.substr(head_end + 4);
    return reply;
}

// A JSON string of `s` (UTF-8 passes through; quotes, backslashes and control bytes escaped).
std::string json_quoted(const std::string& s) {
    std::string out = "\"";
    for (const unsigned char c : s) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += static_cast<char>(c);
        } else if (c < 0x20) {
            char esc[8];
            std::snprintf(esc, sizeof esc, "\\u%04x", c);
            out += esc;
        } else {
            out += static_cast<char>(c);
        }
    }
    return out + "\"";
}

// With KEEPER_TEST_JSON_CAPTURE set, every JSON answer the tests receive is appended to that file,
// one JSON line each, for tests/e2e/openapi to check against docs/openapi.json. One write() per line
// with O_APPEND: test processes running side by side never interleave their lines.
void capture_json_answer(const std::string& method, const std::string& target,
                         const std::map<std::string, std::string>& headers, const http_reply& reply) {
    const char* path = std::getenv("KEEPER_TEST_JSON_CAPTURE");
    if (!path || !reply.header("content-type").starts_with("application/json")) return;
    std::string sent_type;
    for (const auto& [name, value] : headers) {
        if (lower(name) == "content-type") sent_type = value;
    }
    const std::string line =
        "{\"method\":" + json_quoted(method) + ",\"target\":" + json_quoted(target) +
        ",\"content_type\":" + json_quoted(sent_type) + ",\"status\":" + std::to_string(reply.status) +
        ",\"jsonerror\":" + json_quoted(reply.header("jsonerror")) + ",\"body\":" + json_quoted(reply.body) + "}\n";
    const int fd = ::open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return;
    [[maybe_unused]] const auto n = ::write(fd, line.data(), line.size());
    ::close(fd);
}

}  // namespace

http_reply http_request(int port, const std::string& method, const std::string& target,
                        const std::map<std::string, std::string>& headers, const std::string& body) {
    socket_fd s;
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<std::uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(s.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
        throw std::runtime_error("cannot connect to 127.0.0.1:" + std::to_string(port));
    }
    std::string req =
        method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) + "\r\nConnection: close\r\n";
    for (const auto& [name, value] : headers) req += name + ": " + value + "\r\n";
    if (!body.empty() || method == "POST") req += "Content-Length: " + std::to_string(body.size()) + "\r\n";
    req += "\r\n" + body;
    send_all(s.get(), req);
    auto reply = parse(receive_all(s.get()));
    capture_json_answer(method, target, headers, reply);
    return reply;
}

}  // namespace keeper::test
