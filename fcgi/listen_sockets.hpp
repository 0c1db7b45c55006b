#pragma once
// The pool's listening sockets: the one nginx sends every request to, and the retry socket (-1:
// none). docs/design.md, "The process model" and "In-doubt calls".
#include <string>

namespace keeper::fcgi {

struct listen_sockets {
    int main_fd = -1;
    int retry_fd = -1;
};

// `listen` and `retry_listen` (a unix socket path or HOST:PORT) opened, or where empty the
// sockets systemd hands over: LISTEN_FDS (the pool's socket, then the retry socket), else fd 0
// for the pool's socket alone. Throws when there is no pool's socket.
listen_sockets open_listen_sockets(const std::string& listen, const std::string& retry_listen);

}  // namespace keeper::fcgi
