#include "answer_while_waiting.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "core/pipeline/log_line.hpp"
#include "core/pipeline/request_router.hpp"
#include "fcgi/fcgi_exchange.hpp"
#include "log_writer.hpp"

namespace keeper::pool {
namespace {

// From when on nginx's passing of a request is surely after this process began (its static objects
// are made before main): a second later, for nginx's clock running ahead of this host's. An id of
// the second before may be a call the pool before this one still commits (a pool systemd restarted
// while its server process commits), so it stays "outcome unknown".
const auto began = std::chrono::system_clock::now() + std::chrono::seconds{1};

// A request sent again whose first attempt nginx passed on after this process began reached no
// worker: this process runs none while it waits (answer_while_waiting.hpp).
void forget_a_mark_no_worker_saw(core::http_request& req) {
    if (req.retried && req.sent_at && *req.sent_at > began) req.retried = false;
}

// One connection, one request, one answer, then closed. A peer that sends nothing within 2 s is
// dropped: nginx sends a whole request at once.
void answer_one(int listen_fd, bool retried, std::size_t body_limit, const std::string& why) {
    const int fd = accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) return;
    const timeval patience{2, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &patience, sizeof patience);
    const auto x = fcgi::exchange_one(fd, body_limit, retried, [&](const core::http_request& req) {
        auto seen = req;
        forget_a_mark_no_worker_saw(seen);
        return core::refuse_request(seen, core::refusal::not_ready, why);
    });
    if (!x.aborted.empty()) log_event("keeper-fcgi", "request aborted while waiting: " + x.aborted);
    if (x.answered)
        write_log_record(core::format_log_line(x.request_id, *x.answered, std::chrono::microseconds{0}, log_format()));
    close(fd);
}

}  // namespace

void answer_while_waiting(fcgi::listen_sockets sockets, std::size_t body_limit,
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

}  // namespace keeper::pool
