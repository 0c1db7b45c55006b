#include "core/pipeline/request_router.hpp"

#include <chrono>
#include <optional>

#include "core/domain/call_runner.hpp"
#include "core/pipeline/call_outcome.hpp"
#include "core/pipeline/host_checks.hpp"
#include "core/wire/endpoint_path.hpp"
#include "core/api/fault.hpp"
#include "core/api/fault_texts.hpp"
#include "core/wire/media_type.hpp"
#include "core/pipeline/metrics.hpp"
#include "core/domain/operation_table.hpp"
#include "core/wire/response_writer.hpp"
#include "core/pages/openapi_writer.hpp"
#include "core/pages/service_pages.hpp"
#include "core/wire/transport_table.hpp"

namespace keeper::core {
namespace {

constexpr std::string_view form_type = "application/x-www-form-urlencoded";
constexpr std::string_view json_type = "application/json";

void record_outcome(request_log& log, const result_value& value) {
    if (const auto* code = std::get_if<result_code>(&value)) {
        log.result = static_cast<int>(*code);
        log.outcome = "result=" + std::to_string(*log.result);
    } else {
        log.outcome = "ok";
    }
}

const operation& path_operation(const endpoint_path& ep, request_log& log) {
    const auto* op = find_operation(ep.group, *ep.operation_name);
    if (!op) {
        throw fault(fault_kind::unknown_operation,
                    "Unknown operation '" + *ep.operation_name + "' in " + std::string{group_name(ep.group)} + ".");
    }
    log.operation = op->name;
    log.op = op;
    return *op;
}

// The transport whose shape the request's answer takes, a fault's included: the one the transport
// table recognises by method, path shape and media type. Known only once the path names a group
// and the method is GET or POST; before that, every answer is plain text.
transport answering_transport(const http_request& req) {
    const auto ep = parse_endpoint_path(req.path);
    if (is_call_outcome(req.path)) return transport::json;  // a JSON endpoint: its faults are JSON too
    if (!ep || (req.method != "GET" && req.method != "POST")) return transport::none;
    const auto media = parse_media_type(req.content_type);
    if (const auto* row = recognise_transport(req.method, ep->operation_name.has_value(), media.essence))
        return row->id;
    // JSON sent where keeper takes no JSON (the group's path) is still answered in JSON's shape.
    return media.essence == json_type ? transport::json : transport::none;
}

// The request's call, decoded by its transport's row. An unknown operation named in the path is
// 404 whatever the content type, written in the transport's shape when there is one.
decoded_call decode_request(const http_request& req, const endpoint_path& ep, const settings& cfg, request_log& log) {
    const auto media = parse_media_type(req.content_type);
    const auto* row = recognise_transport(req.method, ep.operation_name.has_value(), media.essence);
    const auto* op = ep.operation_name ? &path_operation(ep, log) : nullptr;
    if (!row && op) {
        throw fault(fault_kind::unsupported_media_type,
                    "An HTTP POST to an operation must be application/x-www-form-urlencoded or application/json.");
    }
    if (!row && media.essence == form_type) {
        throw fault(fault_kind::no_such_endpoint,
                    "A form POST must name the operation in the path: " + ep.group_path + "/Operation.");
    }
    if (!row) {
        throw fault(fault_kind::unsupported_media_type,
                    "Content type '" + media.essence +
                        "' is not SOAP (text/xml, application/soap+xml); a form or JSON "
                        "POST names the operation in the path.");
    }
    return row->decode(req, ep, op, media, cfg);
}

// GET /metrics: every part's series (the requests', the pool's, its processes', its database
// connections'), whether the database's commits wait for a second copy, and how far its clock is
// from this host's.
http_response metrics_page(const metrics_source& metrics, store& st, request_log& log) {
    log.group = "metrics";
    log.outcome = "page";
    auto text = metrics.text();
    text += format_synchronous_standby(st.names_synchronous_standby());
    text += format_database_clock(st.database_clock_offset());
    return {200, "text/plain; version=0.0.4; charset=utf-8", {}, std::move(text)};
}

http_response route(const http_request& req, transport via, store& st, const settings& cfg,
                    const metrics_source* metrics, request_log& log) {
    log.retried = req.retried;
    if (is_host_check(req.path)) return answer_host_check(req, st, log);
    if (is_call_outcome(req.path)) return answer_call_outcome(req, st, cfg, call_deadline(req, cfg.call_budget), log);
    if (req.path == "/metrics" && req.method == "GET" && metrics) return metrics_page(*metrics, st, log);
    if (req.path == "/openapi.json" && req.method == "GET") {
        log.group = "openapi";
        log.outcome = "page";
        static const std::string document = write_openapi();  // the table is fixed at build time
        return {200, "application/json; charset=utf-8", {}, document};
    }
    if (req.path == "/openapi" && req.method == "GET") {
        log.group = "openapi";
        log.outcome = "page";
        return openapi_page(req, cfg);
    }
    const auto ep = parse_endpoint_path(req.path);
    if (!ep) throw fault(fault_kind::no_such_endpoint, std::string{no_service_text});
    log.group = group_name(ep->group);
    if (req.method != "GET" && req.method != "POST") {
        throw fault(fault_kind::method_not_allowed, "Method " + req.method + " is not allowed; use GET or POST.");
    }
    if (req.body_too_large) {
        // The body is not read, but its media type still says the answer's shape (JSON's 413 is JSON).
        throw fault(fault_kind::body_too_large, body_too_large_text(cfg.body_limit));
    }
    if (!ep->operation_name && req.method == "GET") {
        log.outcome = "page";
        return service_page(req, *ep, cfg);
    }
    const auto call = decode_request(req, *ep, cfg, log);
    log.operation = call.op->name;
    log.op = call.op;
    const auto ran = run_call(call, st, cfg, call_frame::of(req, call, cfg));
    record_outcome(log, ran.value);
    auto response = write_result(via, *call.op, ran.value, cfg.api_namespace);
    if (ran.replayed) {
        // Stripe's name for it; the IETF draft names none (docs/api-decisions.md, "Idempotency-Key").
        response.headers.emplace_back("Idempotent-Replayed", "true");
        log.replayed = true;
    }
    return response;
}

// A server fault's reason: what the client may do next, where keeper knows it (docs/design.md,
// "One deadline per call"); never what failed inside, which goes to the log.
std::string server_fault_reason(const std::exception* e, const std::string& request_id) {
    if (dynamic_cast<const outcome_unknown*>(e)) {
        return outcome_unknown_text(request_id, unknown_because::unconfirmed);
    }
    return server_fault_text(request_id);
}

// The request's answer is this fault, in its transport's shape; with Retry-After when the fault
// invites a repeat.
void answer_fault(handled_request& out, transport via, const fault& f, std::optional<int> retry_after_s = {}) {
    out.log.outcome = "fault=" + std::string{fault_kind_name(f.kind())};
    out.log.fault = f.kind();
    out.response = write_fault(via, f);
    if (retry_after_s) out.response.headers.emplace_back("Retry-After", std::to_string(*retry_after_s));
}

}  // namespace

handled_request refuse_request(const http_request& request, refusal why, std::string_view detail, int retry_after_s) {
    handled_request out;
    const transport via = answering_transport(request);
    out.log.via = via;
    out.log.retried = request.retried;
    out.log.trace_id = request_trace_id(request);
    if (const auto ep = parse_endpoint_path(request.path)) out.log.group = group_name(ep->group);
    if (why == refusal::busy) {
        out.log.detail = "refused on arrival: no thread would have been free within admission_wait_ms";
        if (request.sent_at) {
            const auto since = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now() -
                                                                                     *request.sent_at);
            out.log.detail += "; " + std::to_string(since.count()) + " ms after nginx first saw it";
        }
    } else {
        out.log.detail = "not ready: " + std::string{detail};
    }
    if (is_host_check(request.path)) {
        out.response = refused_host_check(request, why == refusal::busy ? "busy" : detail, out.log);
        if (why == refusal::busy && out.response.status != 200) {
            out.response.headers.emplace_back("Retry-After", std::to_string(retry_after_s));
        }
        return out;
    }
    if (why == refusal::not_ready && request.retried) {
        const outcome_unknown unknown{request.request_id, "sent before, to a pool that was not ready"};
        answer_fault(out, via, fault{fault_kind::server, server_fault_reason(&unknown, request.request_id)});
        return out;
    }
    // Not ready: starting, or waiting for a migration or a configuration fix; which one is for the
    // operator's log, not the client.
    const auto reason = why == refusal::busy ? not_run_because::busy : not_run_because::not_ready;
    answer_fault(out, via, fault{fault_kind::not_applied, not_applied_text(request.request_id, reason)}, retry_after_s);
    return out;
}

handled_request handle_request(const http_request& request, store& st, const settings& cfg,
                               const metrics_source* metrics) {
    handled_request out;
    const transport via = answering_transport(request);
    out.log.via = via;
    out.log.trace_id = request_trace_id(request);
    try {
        out.response = route(request, via, st, cfg, metrics, out.log);
        return out;
    } catch (const fault& f) {
        answer_fault(out, via, f);
        return out;
    } catch (const key_reused&) {
        answer_fault(out, via, fault{fault_kind::key_reused, std::string{key_reused_text}});
        return out;
    } catch (const key_in_flight&) {
        answer_fault(out, via, fault{fault_kind::key_in_flight, std::string{key_in_flight_text}}, 1);
        return out;
    } catch (const not_applied& e) {
        out.log.detail = e.what();
        const auto text = not_applied_text(request.request_id, not_run_because::out_of_time);
        answer_fault(out, via, fault{fault_kind::not_applied, text}, 1);
        return out;
    } catch (const std::exception& e) {
        out.log.detail = e.what();
        answer_fault(out, via, fault{fault_kind::server, server_fault_reason(&e, request.request_id)});
        return out;
    } catch (...) {
        out.log.detail = "unknown exception";
    }
    answer_fault(out, via, fault{fault_kind::server, server_fault_reason(nullptr, request.request_id)});
    return out;
}

}  // namespace keeper::core
