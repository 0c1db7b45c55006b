#pragma once
// The pool's listening sockets: the one nginx sends every request to, and the retry socket (-1:
// none). docs/design.md, "The process model" and "In-doubt calls".

namespace keeper::fcgi {

struct listen_sockets {
    int main_fd = -1;
    int retry_fd = -1;
};

}  // namespace keeper::fcgi
