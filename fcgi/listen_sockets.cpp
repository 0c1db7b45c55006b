#include "listen_sockets.hpp"

#include <fcgiapp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <stdexcept>

namespace keeper::fcgi {
namespace {

constexpr int listen_backlog = 1024;

bool is_socket(int fd) {
    struct stat st {};
    return fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode);
}

// systemd's protocol: LISTEN_FDS=N for this pid means the sockets are fds 3 .. 3+N-1, in the
// order the socket unit lists them (keeper.socket: the pool's socket, then the retry socket).
int listen_fds() {
    const char* fds = std::getenv("LISTEN_FDS");
    const char* pid = std::getenv("LISTEN_PID");
    if (!fds || (pid && std::to_string(getpid()) != pid)) return 0;
    const std::string n{fds};
    return n == "1" ? 1 : n == "2" ? 2 : 0;
}

int open_socket(const std::string& address) {
    const int fd = FCGX_OpenSocket(address.c_str(), listen_backlog);
    if (fd < 0) throw std::runtime_error("cannot listen on " + address);
    // A unix socket is for nginx, which runs as the same service user or its group.
    if (address.find(':') == std::string::npos) chmod(address.c_str(), 0660);
    return fd;
}

}  // namespace

listen_sockets open_listen_sockets(const std::string& listen, const std::string& retry_listen) {
    listen_sockets out;
    if (!listen.empty()) {
        out.main_fd = open_socket(listen);
    } else if (listen_fds() >= 1 && is_socket(3)) {
        out.main_fd = 3;
    } else if (is_socket(0)) {
        out.main_fd = 0;
    } else {
        throw std::runtime_error(
            "no socket on fd 0 or from LISTEN_FDS: start from the systemd socket unit, or give --listen");
    }
    if (!retry_listen.empty()) {
        out.retry_fd = open_socket(retry_listen);
    } else if (listen_fds() == 2 && is_socket(4)) {
        out.retry_fd = 4;
    }
    return out;
}

}  // namespace keeper::fcgi
