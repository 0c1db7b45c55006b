#pragma once
// THE table of transports, as operation_table is the table of operations: each row says how a
// request of that transport is recognised, decoded, answered, faulted and shown in samples. The
// pipeline (request_router.cpp), the writers, the help pages, the API reference, the metrics and
// the golden-case list iterate it. Adding a transport: a value in core/api/transport.hpp, its
// reader and writer here in wire/, and one row in transport_table.cpp.
#include <span>
#include <string_view>

#include "core/api/decoded_call.hpp"
#include "core/api/fault.hpp"
#include "core/api/http_message.hpp"
#include "core/api/settings.hpp"
#include "core/api/transport.hpp"
#include "core/wire/endpoint_path.hpp"
#include "core/wire/media_type.hpp"
#include "core/wire/samples.hpp"

namespace keeper::core {

struct transport_row {
    transport id;
    std::string_view name;   // log lines, metrics labels, golden case files: "soap11"
    std::string_view title;  // help pages and docs: "SOAP 1.1"
    // Recognised by: the method, whether the path names the operation ("/Group.asmx/Operation")
    // or only the group ("/Group.asmx"), and the Content-Type's essence (empty: any, for GET).
    std::string_view method;
    bool operation_in_path;
    std::string_view content_type;
    // The request's call. For rows with the operation in the path, `op` is it; else nullptr.
    decoded_call (*decode)(const http_request&, const endpoint_path&, const operation* op, const media_type&,
                           const settings&);
    http_response (*write_result)(const operation&, const result_value&, std::string_view ns);
    http_response (*write_fault)(const fault&);
    sample_exchange (*sample)(const operation&, std::string_view group_path, std::string_view ns);
};

std::span<const transport_row> transports();
// The row of a transport; nullptr for transport::none.
const transport_row* find_transport(transport t);
// The row whose method, path shape and media type the request has; nullptr when none does.
const transport_row* recognise_transport(std::string_view method, bool operation_in_path,
                                         std::string_view media_essence);
// "soap11", or "-" for transport::none.
std::string_view transport_name(transport t);

}  // namespace keeper::core
