#include "core/pipeline/call_outcome.hpp"

#include <string>

#include "core/api/fault.hpp"
#include "core/api/fault_texts.hpp"
#include "core/api/text_util.hpp"
#include "core/domain/formats.hpp"
#include "core/wire/form_reader.hpp"
#include "core/wire/json_writer.hpp"

namespace keeper::core {
namespace {

using namespace std::chrono_literals;

// When a look begins to decide the call (keeper_decide_call): after the time this host's settings
// give an attempt that began in time to end, so that a slow call is not cut short by an early look.
// A call's last attempt is cut at its cancel point, before its deadline (call_budget_ms after nginx
// first saw it); one whose worker stopped runs at most statement_timeout_ms on its own. Whether
// the answer holds does not depend on it: the database decides under the call's lock, which every
// attempt holds to its commit, so a host with a longer budget or another clock is refused, never
// contradicted (docs/design.md, "A call decided as not applied").
constexpr auto final_slack = 1s;
// How far ahead of this host's clock a request id may be dated: nginx's clocks and this host's
// agree within seconds (docs/operations.md, "Clocks"); an id dated later is no call keeper had.
constexpr auto future_allowance = 5min;

std::string head(std::string_view request_id, int session) {
    return R"({"requestId":)" + json_string(request_id) + R"(,"session":)" + std::to_string(session);
}

http_response json_answer(std::string body, request_log& log, std::string_view outcome) {
    log.outcome = "outcome=" + std::string{outcome};
    return {200, std::string{json_content_type}, {}, std::move(body) + "}"};
}

}  // namespace

bool is_call_outcome(std::string_view path) { return path == "/call-outcome"; }

http_response answer_call_outcome(const http_request& req, store& st, const settings& cfg, const deadline& until,
                                  request_log& log) {
    log.group = "calls";
    log.operation = "CallOutcome";
    if (req.method != "GET" && req.method != "POST") {
        throw fault(fault_kind::method_not_allowed, "Method " + req.method + " is not allowed; use GET or POST.");
    }
    if (req.body_too_large) {
        throw fault(fault_kind::body_too_large, body_too_large_text(cfg.body_limit));
    }
    const auto form = read_form(req.method == "GET" ? std::string_view{req.query} : std::string_view{req.body});
    const auto& session_id = one_form_value(form, "sessionId");
    const auto& request_id = one_form_value(form, "requestId");
    if (!formats::is_session_id(session_id))
        throw fault(fault_kind::client, "Parameter 'sessionId' is not a session id.");
    const auto sent = request_id_time(request_id);
    if (!sent) {
        throw fault(fault_kind::client,
                    "Parameter 'requestId' is not a request id keeper gives: 13 digits of time, then 19 hex digits.");
    }
    if (*sent > std::chrono::system_clock::now() + future_allowance) {
        throw fault(fault_kind::client, "Parameter 'requestId' is dated more than " +
                                            std::to_string(future_allowance.count()) +
                                            " minutes ahead of this server's clock: no call has that id.");
    }
    const auto final_at =
        *sent + cfg.call_budget + std::max<std::chrono::milliseconds>(cfg.statement_timeout + final_slack, 5s);
    const auto record = st.find_call({to_lower_ascii(session_id), cfg.session_ttl}, request_id, *sent, final_at, until);
    auto body = head(request_id, static_cast<int>(record.session));
    if (record.session != result_code::ok) return json_answer(std::move(body), log, "session");
    if (record.result) {
        body += R"(,"outcome":"recorded","result":)" + std::to_string(static_cast<int>(*record.result)) + R"(,"at":)" +
                json_string(record.at);
        return json_answer(std::move(body), log, "recorded");
    }
    if (record.undecided <= 0ms) return json_answer(body + R"(,"outcome":"none")", log, "none");
    const auto wait =
        std::max<std::chrono::seconds::rep>(1, std::chrono::ceil<std::chrono::seconds>(record.undecided).count());
    auto answer = json_answer(body + R"(,"outcome":"pending","retryAfter":)" + std::to_string(wait), log, "pending");
    answer.headers.emplace_back("Retry-After", std::to_string(wait));
    return answer;
}

}  // namespace keeper::core
