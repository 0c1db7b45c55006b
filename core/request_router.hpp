#pragma once
// The request pipeline: path → method → body limit → transport → decode → run → encode. Also the
// one boundary where errors become faults: a fault goes to the client as it is; anything else
// becomes a generic server fault, its details kept in the log record only.
#include "core/api/settings.hpp"
#include "core/domain/store.hpp"
#include "core/request_log.hpp"

namespace keeper::core {

struct metrics_block;

// Never throws. With metrics, GET /metrics renders them (Prometheus text format).
handled_request handle_request(const http_request& request, store& st, const settings& cfg,
                               const metrics_block* metrics = nullptr);

// The answer to a request refused before it started, for want of a free thread soon enough
// (core/admission.hpp): "not applied", 503 and Retry-After, in the request's transport's shape.
handled_request refuse_request(const http_request& request);

}  // namespace keeper::core
