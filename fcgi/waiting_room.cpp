#include "waiting_room.hpp"

#include <fcgiapp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "core/log_line.hpp"
#include "core/request_router.hpp"
#include "fcgi_exchange.hpp"
#include "log_writer.hpp"

namespace keeper::fcgi {
namespace {

// One connection, one request, one answer, then closed. A peer that sends nothing within 2 s is
// dropped: nginx sends a whole request at once.
void answer_one(int listen_fd, bool retried, std::size_t body_limit, const std::string& why) {
    const int fd = accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) return;
    const timeval patience{2, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &patience, sizeof patience);
    FCGX_Request request;
    FCGX_InitRequest(&request, -1, 0);
    request.ipcFd = dup(fd);    // libfcgi closes only its duplicate, plainly (fcgi/worker.cpp says why)
    request.keepConnection = 1;
    request.detached = 1;
    if (request.ipcFd >= 0 && FCGX_Accept_r(&request) == 0) {
        try {
            auto req = read_request(request, body_limit);
            req.retried = retried;
            const auto handled = core::refuse_request(req, core::refusal::not_ready, why);
            write_response(request, handled.response, req.request_id);
            write_log_record(core::format_log_line(req.request_id, handled, std::chrono::microseconds{0}));
        } catch (const std::exception& e) {
            write_log_record(std::string{"keeper-fcgi: request aborted while waiting: "} + e.what());
        }
        FCGX_Finish_r(&request);
    }
    if (request.ipcFd >= 0) close(request.ipcFd);
    close(fd);
}

}  // namespace

void answer_while_waiting(listen_sockets sockets, std::size_t body_limit,
                          const std::function<std::optional<std::string>()>& why_waiting,
                          std::chrono::milliseconds every) {
    for (auto why = why_waiting(); why; why = why_waiting()) {
        const auto until = std::chrono::steady_clock::now() + every;
        for (auto now = std::chrono::steady_clock::now(); now < until; now = std::chrono::steady_clock::now()) {
            pollfd ready[2] = {{sockets.main_fd, POLLIN, 0}, {sockets.retry_fd, POLLIN, 0}};  // poll skips an fd of -1
            const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - now);
            if (poll(ready, 2, static_cast<int>(left.count()) + 1) <= 0) continue;
            if (ready[0].revents & POLLIN) answer_one(sockets.main_fd, false, body_limit, *why);
            if (ready[1].revents & POLLIN) answer_one(sockets.retry_fd, true, body_limit, *why);
        }
    }
}

}  // namespace keeper::fcgi
