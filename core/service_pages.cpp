#include "service_pages.hpp"

#include "fault.hpp"
#include "operation_table.hpp"
#include "text_util.hpp"

namespace keeper::core {
namespace {

std::string group_page(const endpoint_path& ep) {
    const std::string name{group_name(ep.group)};
    std::string html = "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>" + name +
                       " Web Service</title></head><body>\n<h1>" + name + "</h1>\n<p>The following operations are supported.</p>\n<ul>\n";
    for (const auto& op : operations()) {
        if (op.group != ep.group) continue;
        const auto op_name = xml_escape_attribute(op.name);
        html += "<li><a href=\"" + xml_escape_attribute(ep.group_path) + "?op=" + op_name + "\">" + op_name + "</a><br>" +
                xml_escape_attribute(op.summary) + "</li>\n";
    }
    html += "</ul>\n</body></html>\n";
    return html;
}

}  // namespace

http_response service_page(const http_request& request, const endpoint_path& ep, const settings&) {
    if (!request.query.empty()) {
        throw fault(fault_kind::no_such_endpoint, "This service description is not available.");
    }
    return {200, "text/html; charset=utf-8", {}, group_page(ep)};
}

}  // namespace keeper::core
