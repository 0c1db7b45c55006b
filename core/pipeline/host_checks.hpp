#pragma once
// The three checks a host answers for load balancers, systemd and deploys (docs/operations.md,
// "Health checks"), over GET and HEAD:
//   /live    the process answers: 200, whatever the database does (never fails a whole fleet
//            at once because PostgreSQL is away);
//   /ready   and the database takes writes (a primary): 200, else 503 with the reason;
//   /health  the database answers (a primary or a standby): 200, else 503.
#include <string_view>

#include "core/api/http_message.hpp"
#include "core/domain/store.hpp"
#include "core/pipeline/request_log.hpp"

namespace keeper::core {

bool is_host_check(std::string_view path);

// The check's answer from a serving worker. Throws a method_not_allowed fault for a method other
// than GET or HEAD (nginx drops a HEAD answer's body).
http_response answer_host_check(const http_request& req, store& st, request_log& log);

// The check's answer from a pool that refuses calls now (busy, or not ready: `reason`): /live is
// still 200, the others 503 "not ready: <reason>".
http_response refused_host_check(const http_request& req, std::string_view reason, request_log& log);

}  // namespace keeper::core
