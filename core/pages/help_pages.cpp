#include "core/pages/help_pages.hpp"

#include "core/api/text_util.hpp"
#include "core/domain/operation_table.hpp"
#include "core/wire/transport_table.hpp"

namespace keeper::core {
namespace {

std::string html(std::string_view s) { return xml_escape_attribute(s); }

std::string page(const std::string& title, const std::string& body) {
    return "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>" + html(title) +
           "</title><style>body{font-family:sans-serif;margin:2em;max-width:60em}pre{background:#f4f4f4;padding:1em;"
           "overflow:auto}iframe{width:100%;height:8em;border:1px solid #ccc}td{padding:.2em "
           ".5em}</style></head><body>\n" +
           body + "</body></html>\n";
}

std::string request_text(const sample_exchange& s, std::string_view host) {
    std::string out = s.request_line + " HTTP/1.1\nHost: " + std::string{host} + "\n";
    for (const auto& h : s.request_headers) out += h + "\n";
    if (!s.request_headers.empty()) out += "\n" + s.request_body;  // a body follows the headers
    return out;
}

std::string response_text(const sample_exchange& s) {
    return "HTTP/1.1 200 OK\nContent-Type: " + s.response_content_type + "\nContent-Length: length\n\n" +
           s.response_body;
}

std::string section(const transport_row& row, const operation& op, const operation_page_options& o) {
    const auto s = row.sample(op, o.group_path, o.ns);
    return "<h2>" + html(row.title) + "</h2>\n<p>The following is a sample " + html(row.title) +
           " request and response. The placeholders shown need to be replaced with actual values.</p>\n<pre>" +
           html(request_text(s, o.host)) + "</pre>\n<pre>" + html(response_text(s)) + "</pre>\n";
}

// ASMX's test form: one text field per parameter, POSTed as a form to the operation. The answer
// opens in the frame beneath, so the page needs no script (its CSP allows none).
std::string test_form(const operation& op, std::string_view group_path) {
    const auto action = std::string{group_path} + "/" + std::string{op.name};
    std::string out =
        "<h2>Test</h2>\n<p>To test the operation using the HTTP POST protocol, click the 'Invoke' button.</p>\n"
        "<form id=\"test-form\" action=\"" +
        html(action) +
        "\" method=\"POST\" target=\"test-result\">\n"
        "<table>\n<tr><th>Parameter</th><th>Value</th></tr>\n";
    for (const auto& p : op.params) {
        const auto name = html(p.name);
        out += "<tr><td><label for=\"p-" + name + "\">" + name +
               ":</label></td><td><input type=\"text\" size=\"50\" id=\"p-" + name + "\" name=\"" + name +
               "\" placeholder=\"" + html(xsd_type_name(p.type)) + "\"></td></tr>\n";
    }
    return out +
           "<tr><td></td><td><input type=\"submit\" id=\"invoke\" value=\"Invoke\"></td></tr>\n</table>\n</form>\n"
           "<iframe name=\"test-result\" id=\"test-result\" title=\"Response\"></iframe>\n";
}

std::string no_test_form() {
    return "<h2>Test</h2>\n<p>The test form is only available for requests from the local machine.</p>\n";
}

}  // namespace

std::string group_page(api_group group, std::string_view group_path) {
    const std::string name{group_name(group)};
    std::string body = "<h1>" + html(name) +
                       "</h1>\n<p>The following operations are supported. For a formal definition, "
                       "please review the <a href=\"" +
                       html(group_path) + "?WSDL\">Service Description</a>.</p>\n<ul>\n";
    for (const auto& op : operations()) {
        if (op.group != group) continue;
        body += "<li><a href=\"" + html(group_path) + "?op=" + html(op.name) + "\">" + html(op.name) + "</a><br>" +
                html(op.summary) + "</li>\n";
    }
    body +=
        "</ul>\n<p>JSON callers: every operation described as OpenAPI 3.1, <a "
        "href=\"/openapi.json\">/openapi.json</a>, "
        "to browse and try in <a href=\"/openapi\">/openapi</a>.</p>\n";
    return page(name + " Web Service", body);
}

std::string operation_page(const operation& op, const operation_page_options& o) {
    const std::string name{op.name};
    std::string body = "<p><a href=\"" + html(o.group_path) +
                       "\">Click here</a> for a complete list of operations.</p>\n<h1>" + html(name) + "</h1>\n<p>" +
                       html(op.summary) + "</p>\n";
    body += o.test_form ? test_form(op, o.group_path) : no_test_form();
    for (const auto& row : transports()) body += section(row, op, o);
    return page(std::string{group_name(op.group)} + " Web Service: " + name, body);
}

}  // namespace keeper::core
