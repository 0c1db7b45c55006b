#pragma once
// The request pipeline: path → method → body limit → transport → decode → run → encode. Also the
// one boundary where errors become faults: a fault goes to the client as it is; anything else
// becomes a generic server fault, its details kept in the log record only.
#include <string_view>

#include "core/api/settings.hpp"
#include "core/domain/store.hpp"
#include "core/pipeline/request_log.hpp"

namespace keeper::core {

class metrics_source;

// Never throws. With metrics, GET /metrics renders them (Prometheus text format,
// core/pipeline/metrics.hpp).
handled_request handle_request(const http_request& request, store& st, const settings& cfg,
                               const metrics_source* metrics = nullptr);

// Why a request is refused before it starts: no thread would be free soon enough
// (fcgi/admission.hpp), or the pool is not ready to serve at all (it waits for its database
// schema: pool/answer_while_waiting.hpp; `detail` says why, for /health and the log).
enum class refusal { busy, not_ready };

// The answer to a request refused before it started: "not applied", 503 and Retry-After, in the
// request's transport's shape. A request nginx sent before that finds the pool not ready is
// "outcome unknown" instead (an earlier pool may have run it). The host checks answer for
// themselves (core/pipeline/host_checks.hpp): /live 200, /ready and /health 503 with the reason.
// retry_after_s: the Retry-After it gives (retry_pushback, fcgi/admission.hpp).
handled_request refuse_request(const http_request& request, refusal why = refusal::busy, std::string_view detail = {},
                               int retry_after_s = 1);

}  // namespace keeper::core
