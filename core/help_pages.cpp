#include "help_pages.hpp"

#include "decoded_call.hpp"
#include "operation_table.hpp"
#include "samples.hpp"
#include "response_writer.hpp"
#include "soap_version.hpp"
#include "text_util.hpp"

namespace keeper::core {
namespace {

std::string html(std::string_view s) { return xml_escape_attribute(s); }

std::string page(const std::string& title, const std::string& body) {
    return "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>" + html(title) +
           "</title><style>body{font-family:sans-serif;margin:2em;max-width:60em}pre{background:#f4f4f4;padding:1em;"
           "overflow:auto}</style></head><body>\n" + body + "</body></html>\n";
}

std::string section(const std::string& title, const std::string& intro, const std::string& request, const std::string& response) {
    return "<h2>" + html(title) + "</h2>\n<p>" + html(intro) + "</p>\n<pre>" + html(request) + "</pre>\n<pre>" + html(response) + "</pre>\n";
}

}  // namespace

std::string group_page(api_group group, std::string_view group_path) {
    const std::string name{group_name(group)};
    std::string body = "<h1>" + html(name) + "</h1>\n<p>The following operations are supported. For a formal definition, "
                       "please review the <a href=\"" + html(group_path) + "?WSDL\">Service Description</a>.</p>\n<ul>\n";
    for (const auto& op : operations()) {
        if (op.group != group) continue;
        body += "<li><a href=\"" + html(group_path) + "?op=" + html(op.name) + "\">" + html(op.name) + "</a><br>" +
                html(op.summary) + "</li>\n";
    }
    return page(name + " Web Service", body + "</ul>\n");
}

std::string operation_page(const operation& op, std::string_view group_path, std::string_view host, std::string_view ns) {
    const std::string name{op.name}, path{group_path}, host_line = "Host: " + std::string{host} + "\n";
    const auto action = soap_action_for(ns, op.name);
    std::string body = "<p><a href=\"" + html(path) + "\">Click here</a> for a complete list of operations.</p>\n<h1>" +
                       html(name) + "</h1>\n<p>" + html(op.summary) + "</p>\n";
    body += section("SOAP 1.1", "The placeholders shown need to be replaced with actual values.",
                    "POST " + path + " HTTP/1.1\n" + host_line + "Content-Type: text/xml; charset=utf-8\nContent-Length: length\n"
                    "SOAPAction: \"" + action + "\"\n\n" + sample_soap_envelope(op, ns, soap_version::v11, false),
                    "HTTP/1.1 200 OK\nContent-Type: text/xml; charset=utf-8\nContent-Length: length\n\n" +
                        sample_soap_envelope(op, ns, soap_version::v11, true));
    body += section("SOAP 1.2", "The placeholders shown need to be replaced with actual values.",
                    "POST " + path + " HTTP/1.1\n" + host_line + "Content-Type: application/soap+xml; charset=utf-8\n"
                    "Content-Length: length\n\n" + sample_soap_envelope(op, ns, soap_version::v12, false),
                    "HTTP/1.1 200 OK\nContent-Type: application/soap+xml; charset=utf-8\nContent-Length: length\n\n" +
                        sample_soap_envelope(op, ns, soap_version::v12, true));
    const auto query = sample_form(op);
    body += section("HTTP GET", "The placeholders shown need to be replaced with actual values.",
                    "GET " + path + "/" + name + (query.empty() ? "" : "?" + query) + " HTTP/1.1\n" + host_line,
                    "HTTP/1.1 200 OK\nContent-Type: text/xml; charset=utf-8\nContent-Length: length\n\n" + sample_plain_response(op, ns));
    body += section("HTTP POST", "The placeholders shown need to be replaced with actual values.",
                    "POST " + path + "/" + name + " HTTP/1.1\n" + host_line +
                        "Content-Type: application/x-www-form-urlencoded\nContent-Length: length\n\n" + query,
                    "HTTP/1.1 200 OK\nContent-Type: text/xml; charset=utf-8\nContent-Length: length\n\n" + sample_plain_response(op, ns));
    return page(std::string{group_name(op.group)} + " Web Service: " + name, body);
}

}  // namespace keeper::core
