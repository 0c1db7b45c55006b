#include "core/wire/response_writer.hpp"

#include "core/wire/form_writer.hpp"
#include "core/wire/json_writer.hpp"
#include "core/wire/transport_table.hpp"

namespace keeper::core {
namespace {

// HTTP statuses of faults (docs/api-decisions.md, Errors) that do not depend on the transport.
int http_level_status(fault_kind kind) {
    switch (kind) {
        case fault_kind::no_such_endpoint:
            return 404;
        case fault_kind::method_not_allowed:
            return 405;
        case fault_kind::unsupported_media_type:
            return 415;
        case fault_kind::body_too_large:
            return 413;
        default:
            return 0;
    }
}

}  // namespace

http_response write_result(transport t, const operation& op, const result_value& value, std::string_view ns) {
    // A result exists only for a decoded call, whose transport has a row.
    return find_transport(t)->write_result(op, value, ns);
}

http_response write_fault(transport t, const fault& f) {
    if (const int status = http_level_status(f.kind())) {
        // Every error of a JSON call is ASP.NET AJAX's {"Message"} with `jsonerror: true`, so a
        // JSON client parses all of them alike; the status stays the HTTP-level one.
        auto r = t == transport::json ? write_json_fault(f) : write_plain_fault(status, f);
        r.status = status;
        if (status == 405) r.headers.emplace_back("Allow", "GET, POST");
        return r;
    }
    const auto* row = find_transport(t);
    return row ? row->write_fault(f) : write_form_fault(f);
}

}  // namespace keeper::core
