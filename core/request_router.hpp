#pragma once
// The request pipeline: path → method → body limit → transport → decode → run → encode. Also the
// one boundary where errors become faults: a fault goes to the client as it is; anything else
// becomes a generic server fault, its details kept in the log record only.
#include <optional>
#include <string>

#include "fault.hpp"
#include "http_message.hpp"
#include "operation.hpp"
#include "settings.hpp"
#include "store.hpp"
#include "transport.hpp"

namespace keeper::core {

struct request_log {
    std::string group = "-";
    std::string operation = "-";
    transport via = transport::none;
    std::string outcome;  // "result=0", "ok" (dateTime/string results), "fault=client", "page"
    std::string detail;   // why a server fault happened: for the log, never for the client
    // The same outcome, structured, for the metrics.
    const keeper::core::operation* op = nullptr;
    std::optional<int> result;          // the int result, for int operations
    std::optional<fault_kind> fault;    // the fault, if the request ended in one
};

struct metrics_block;

struct handled_request {
    http_response response;
    request_log log;
};

// Never throws. With metrics, GET /metrics renders them (Prometheus text format).
handled_request handle_request(const http_request& request, store& st, const settings& cfg,
                               const metrics_block* metrics = nullptr);

}  // namespace keeper::core
