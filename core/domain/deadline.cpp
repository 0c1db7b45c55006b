#include "core/domain/deadline.hpp"

#include <algorithm>

#include "core/api/request_id.hpp"

namespace keeper::core {

// The call's deadline: call_budget after nginx first saw the call, the time its request id holds
// (sent_at, which the FastCGI front has read from the id already; the id itself for a request
// built otherwise, as a test's), so the time it waited for a worker is spent from its budget; else
// after the worker read it. The database checks the same deadline (keeper_claim) and /call-outcome
// counts from the id's time. A clock behind nginx's (another host) shortens the budget by the
// difference; hosts keep time by NTP (docs/design.md, "One deadline per call").
deadline call_deadline(const http_request& req, std::chrono::milliseconds budget) {
    const auto now = deadline::clock::now();
    const auto wall_now = std::chrono::system_clock::now();
    auto start = req.arrived.value_or(now);
    const auto count_from = [&](std::chrono::system_clock::time_point seen) {
        const auto waited = wall_now - seen;
        if (waited > waited.zero())
            start = std::min(start, now - std::chrono::duration_cast<deadline::clock::duration>(waited));
    };
    if (req.sent_at) {
        count_from(*req.sent_at);
    } else if (const auto seen = request_id_time(req.request_id)) {
        count_from(std::chrono::time_point_cast<std::chrono::system_clock::duration>(*seen));
    }
    return deadline{start + budget};
}

}  // namespace keeper::core
