#include "core/pages/service_pages.hpp"

#include "core/api/fault.hpp"
#include "core/wire/form_reader.hpp"
#include "core/pages/help_pages.hpp"
#include "core/domain/operation_table.hpp"
#include "core/api/text_util.hpp"
#include "core/pages/wsdl_writer.hpp"

namespace keeper::core {
namespace {

constexpr std::string_view xml_type = "text/xml; charset=utf-8";
constexpr std::string_view html_type = "text/html; charset=utf-8";

// The help pages are static HTML with one inline style sheet: no script, nothing foreign; the
// only frame is the test form's answer, from this origin. A page that quoted something hostile
// still could not run or load it.
http_response html_page(std::string body) {
    return {200,
            std::string{html_type},
            {{"Content-Security-Policy",
              "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-src 'self'; base-uri 'none'; "
              "frame-ancestors 'none'"},
             {"X-Content-Type-Options", "nosniff"}},
            std::move(body)};
}

// The origin clients reach the API at: public_base_url, or else what the request itself says
// (its scheme and Host, as ASMX does).
std::string origin(const http_request& req, const settings& cfg) {
    if (!cfg.public_base_url.empty()) return cfg.public_base_url;
    const std::string host = req.host.empty() ? "localhost" : req.host;
    return (req.scheme == "https" ? "https" : "http") + std::string{"://"} + host;
}

// The host part of the origin, for the help pages' sample requests.
std::string public_host(const http_request& req, const settings& cfg) {
    const auto o = origin(req, cfg);
    return o.substr(o.find("://") + 3);
}

// This group's URL: WSDL addresses point at it.
std::string base_url(const http_request& req, const endpoint_path& ep, const settings& cfg) {
    return origin(req, cfg) + ep.group_path;
}

// ASMX's Request.IsLocal: the client is this machine. Behind nginx, REMOTE_ADDR is the client's.
bool from_loopback(std::string_view addr) {
    return addr.starts_with("127.") || addr == "::1" || addr.starts_with("::ffff:127.");
}

bool shows_test_form(const http_request& req, const settings& cfg) {
    switch (cfg.test_form) {
        case test_form_access::any:
            return true;
        case test_form_access::off:
            return false;
        case test_form_access::local:
            return from_loopback(req.remote_addr);
    }
    return false;
}

http_response operation_help(const http_request& req, const endpoint_path& ep, const settings& cfg) {
    const auto form = read_form(req.query);
    const auto name = form.find("op")->second;
    const auto* op = find_operation(ep.group, name);
    if (!op)
        throw fault(fault_kind::no_such_endpoint,
                    "No operation '" + shorten_for_message(name) + "' in " + std::string{group_name(ep.group)} + ".");
    const std::string host = public_host(req, cfg);  // outlives the options' view of it
    const operation_page_options options{ep.group_path, host, cfg.api_namespace, shows_test_form(req, cfg)};
    return html_page(operation_page(*op, options));
}

}  // namespace

http_response openapi_page(const http_request& request, const settings& cfg) {
    if (!shows_test_form(request, cfg)) {
        return {403,
                "text/plain; charset=utf-8",
                {{"X-Content-Type-Options", "nosniff"}},
                "The OpenAPI page is served where the test form is (test_form); the document is /openapi.json.\r\n"};
    }
    // Swagger UI styles its elements inline and draws its icons from data: URLs; it fetches only
    // /openapi.json and, with "Try it out", the operations: all of this origin.
    return {
        200,
        std::string{html_type},
        {{"Content-Security-Policy",
          "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
          "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"},
         {"X-Content-Type-Options", "nosniff"}},
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>keeper API: JSON calls "
        "(OpenAPI)</title>\n"
        "<link rel=\"stylesheet\" href=\"/openapi/swagger-ui.css\">\n</head>\n<body>\n<div id=\"swagger-ui\"></div>\n"
        "<script src=\"/openapi/swagger-ui-bundle.js\"></script>\n<script "
        "src=\"/openapi/keeper-openapi.js\"></script>\n"
        "</body>\n</html>\n"};
}

http_response service_page(const http_request& request, const endpoint_path& ep, const settings& cfg) {
    const auto& q = request.query;
    if (iequals_ascii(q, "wsdl")) {
        return {200, std::string{xml_type}, {}, write_wsdl(ep.group, cfg.api_namespace, base_url(request, ep, cfg))};
    }
    if (iequals_ascii(q, "disco")) {
        return {200, std::string{xml_type}, {}, write_disco(ep.group, cfg.api_namespace, base_url(request, ep, cfg))};
    }
    if (q.rfind("op=", 0) == 0) return operation_help(request, ep, cfg);
    return html_page(group_page(ep.group, ep.group_path));
}

}  // namespace keeper::core
