#pragma once
// What one request came to: its response and the record that the log line (log_line.hpp) and the
// counters (metrics.hpp) are made from. Its own header so that neither includes the pipeline.
#include <optional>
#include <string>

#include "core/api/fault.hpp"
#include "core/api/http_message.hpp"
#include "core/api/operation.hpp"
#include "core/api/transport.hpp"

namespace keeper::core {

struct request_log {
    std::string group = "-";
    std::string operation = "-";
    transport via = transport::none;
    std::string outcome;  // "result=0", "ok" (dateTime/string results), "fault=client", "page"
    std::string detail;   // why a server fault happened: for the log, never for the client
    // The same outcome, structured, for the metrics.
    const keeper::core::operation* op = nullptr;
    std::optional<int> result;        // the int result, for int operations
    std::optional<fault_kind> fault;  // the fault, if the request ended in one
    bool replayed = false;            // answered with the result of an earlier call with its Idempotency-Key
    bool retried = false;             // nginx sent it before, to a worker that died with it (the retry socket)
    std::string trace_id{};           // the W3C trace the call belongs to; empty when none came
};

struct handled_request {
    http_response response;
    request_log log;
};

}  // namespace keeper::core
