#include "core/pages/nginx_errors.hpp"

#include <sstream>
#include <vector>

#include "core/api/fault_texts.hpp"
#include "core/api/settings.hpp"
#include "core/wire/response_writer.hpp"
#include "core/wire/transport_table.hpp"

namespace keeper::core {
namespace {

// Inside one of nginx's pages a request id is nginx's variable: nginx fills it in when it answers.
constexpr std::string_view nginx_request_id = "$keeper_request_id";

// Every page carries these (keeper-locations.conf says why). A location with an add_header of its
// own inherits none of the server's, so each page that adds one states them all, from here.
constexpr std::pair<std::string_view, std::string_view> every_answer_headers[] = {
    {"X-Request-Id", "$keeper_request_id"},
    {"traceresponse", "$keeper_traceparent"},
    {"X-Content-Type-Options", "nosniff"},
};

// One of nginx's own statuses, and the fault keeper would answer in its place.
struct nginx_answer {
    int status;
    std::string_view name;     // the page's location: /_keeper_error/<name>
    std::string_view comment;  // why nginx answers it
    fault_kind kind;
    std::string reason;
    bool retry_after;
};

std::vector<nginx_answer> nginx_answers() {
    return {
        {404, "404", "A path nginx serves nothing at (another .asmx name than keeper's groups): keeper's own 404.",
         fault_kind::no_such_endpoint, std::string{no_service_text}, false},
        {413, "413", "A body over the limit: what keeper itself answers, before a worker reads it.",
         fault_kind::body_too_large, body_too_large_text(settings{}.body_limit), false},
        {429, "429", "Over the per-address limit on the calls that test a credential (keeper-limits.conf).",
         fault_kind::client, std::string{too_many_requests_text}, true},
        {502, "502",
         "A worker died with the request, or its connection broke, and the retries failed too: something of\n"
         "# it left nginx, so a write may have been applied.",
         fault_kind::server, outcome_unknown_text(nginx_request_id, unknown_because::failed), false},
        {503, "503",
         "Nothing of the request reached a worker (no pool listens, its socket refused the connection):\n"
         "# not applied.",
         fault_kind::not_applied, not_applied_text(nginx_request_id, not_run_because::unavailable), true},
        {504, "504", "No answer within the read timeout: the call may still be running.", fault_kind::server,
         outcome_unknown_text(nginx_request_id, unknown_because::timed_out), false},
    };
}

std::string quoted(std::string_view text, char quote) {
    std::string out(1, quote);
    for (const char c : text) {
        if (c == '\r') {
            out += "\\r";
        } else if (c == '\n') {
            out += "\\n";
        } else {
            if (c == '\\' || c == quote) out += '\\';
            out += c;
        }
    }
    return out + quote;
}

bool is_soap(transport t) { return t == transport::soap11 || t == transport::soap12; }

// The page a request of transport t gets: keeper's fault for it, in nginx's status unless SOAP's
// binding wants 500 for a fault, and Retry-After where the answer invites a repeat.
http_response page(const nginx_answer& a, transport t) {
    auto made = write_fault(t, fault{a.kind, a.reason});
    if (!is_soap(t)) made.status = a.status;
    if (a.retry_after) made.headers.emplace_back("Retry-After", "1");
    return made;
}

bool same(const http_response& a, const http_response& b) {
    return a.status == b.status && a.content_type == b.content_type && a.headers == b.headers && a.body == b.body;
}

void write_page(std::ostream& out, std::string_view location, const http_response& r) {
    out << "location = /_keeper_error/" << location << " {\n    internal;\n";
    out << "    default_type " << quoted(r.content_type, '"') << ";\n";
    if (!r.headers.empty()) {
        for (const auto& [name, value] : r.headers) out << "    add_header " << name << " " << value << " always;\n";
        for (const auto& [name, value] : every_answer_headers)
            out << "    add_header " << name << " " << value << " always;\n";
    }
    out << "    return " << r.status << " " << quoted(r.body, '\'') << ";\n}\n";
}

// "^[ \t]*text/xml", quoted: a Content-Type's essence, as nginx's case-insensitive regex (nginx
// reads \t in a quoted string as a tab and passes \+ on as it is).
std::string media_regex(std::string_view essence) {
    std::string out = "\"^[ \\t]*";
    for (const char c : essence) {
        if (c == '+' || c == '.') out += '\\';
        out += c;
    }
    return out + '"';
}

// The answer's location picks a page by the request's Content-Type, as keeper picks its fault's
// shape; each transport whose page is the plain text one shares that page.
void write_answer(std::ostream& out, const nginx_answer& a) {
    const auto text = page(a, transport::none);
    struct own_page {
        const transport_row* row;
        http_response response;
    };
    std::vector<own_page> own;
    for (const auto& row : transports()) {
        if (row.content_type.empty()) continue;
        auto r = page(a, row.id);
        if (!same(r, text)) own.push_back({&row, std::move(r)});
    }
    out << "\n# " << a.comment << "\n";
    out << "location = /_keeper_error/" << a.name << " {\n    internal;\n";
    for (const auto& o : own) {
        out << "    if ($content_type ~* " << media_regex(o.row->content_type) << ") { rewrite ^ /_keeper_error/"
            << a.name << "-" << o.row->name << " last; }\n";
    }
    out << "    rewrite ^ /_keeper_error/" << a.name << "-text last;\n}\n";
    for (const auto& o : own) write_page(out, std::string{a.name} + "-" + std::string{o.row->name}, o.response);
    write_page(out, std::string{a.name} + "-text", text);
}

constexpr std::string_view head =
    R"(# keeper: what nginx answers in keeper's place, in the call's transport shape (docs/api-decisions.md,
# "Errors"). Include at server level in every server that passes keeper's calls on, beside
# keeper-locations.conf or keeper-front-locations.conf, whose locations name these pages.
#
# Generated by `keeperctl nginx-errors` from core's fault texts (core/api/fault_texts.hpp) and
# the transports' fault writers (core/pages/nginx_errors.cpp): each page is the fault keeper
# itself answers in that case, byte for byte. Do not edit; a unit test keeps this file equal to
# the generator's output.
#
# A SOAP request gets a SOAP 1.1 or 1.2 fault (HTTP 500, as the SOAP HTTP binding wants), a JSON
# one ASP.NET AJAX's {"Message":…} with `jsonerror: true`, any other keeper's one-line text, both
# with nginx's own status. 502 and 504 say "outcome unknown" (something of the call left nginx),
# 503 "not applied" (nothing did). ("= URI": the status is the one the page returns.)
)";

constexpr std::string_view failed_inside =
    R"(
# nginx failed inside itself before or while it passed the request (its own 500: out of
# connections or descriptors, "worker_connections are not enough while connecting to upstream").
# When no attempt of the call can have reached a worker (nothing of it left nginx, and no front
# sent it before: $keeper_never_sent, keeper-request-id.conf), "not applied", 503 with
# Retry-After. Otherwise the outcome is unknown. (keeper's own 500s, SOAP faults, pass through:
# nginx intercepts only the statuses it makes itself.)
location @keeper_failed_inside {
    error_page 502 = /_keeper_error/502;
    error_page 503 = /_keeper_error/503;
    if ($keeper_never_sent) {
        return 503;
    }
    return 502;
}
)";

}  // namespace

std::string write_nginx_errors() {
    std::ostringstream out;
    out << head;
    const auto answers = nginx_answers();
    for (const auto& a : answers) out << "error_page " << a.status << " = /_keeper_error/" << a.name << ";\n";
    for (const auto& a : answers) write_answer(out, a);
    out << "\n# A look at a call's outcome (/call-outcome) that nginx could not pass on, or whose answer\n"
           "# never came: a read, so \"ask again\", never \"outcome unknown\". /call-outcome is JSON.\n";
    write_page(
        out, "outcome-unavailable",
        page({503, "outcome-unavailable", "", fault_kind::not_applied, outcome_unreadable_text(nginx_request_id), true},
             transport::json));
    out << failed_inside;
    return out.str();
}

}  // namespace keeper::core
