#include "core/pages/api_reference.hpp"

#include <algorithm>
#include <utility>
#include <vector>

#include "core/domain/error_descriptions.hpp"
#include "core/domain/operation_table.hpp"
#include "core/pages/idempotency_guide.hpp"
#include "core/wire/result_text.hpp"
#include "core/wire/transport_table.hpp"

namespace keeper::core {
namespace {

constexpr std::string_view ns = "http://tempuri.org/";

std::string code_block(const std::string& text) { return "```\n" + text + "\n```\n\n"; }

std::string parameters(const operation& op) {
    if (op.params.empty()) return "Parameters: none.\n\n";
    std::string out = "| parameter | type |\n|---|---|\n";
    for (const auto& p : op.params)
        out += "| " + std::string{p.name} + " | " + std::string{xsd_type_name(p.type)} + " |\n";
    return out + "\n";
}

std::string key_line(const operation& op) {
    return op.effect == call_effect::writes ? "Idempotency-Key: taken (see \"Idempotency-Key\" above).\n\n"
                                            : "Idempotency-Key: ignored (a read, safe to repeat).\n\n";
}

std::string results(const operation& op) {
    if (op.results.empty())
        return "Result: `" + std::string{result_type_name(op.result)} + "`; never a result code.\n\n";
    std::string out = "Result: `int`, one of:\n\n| code | meaning |\n|---|---|\n";
    for (auto code : op.results) {
        const int n = static_cast<int>(code);
        out += "| " + std::to_string(n) + " | " + describe_error(n, culture_english) + " |\n";
    }
    return out + "\n";
}

// Every transport's sample request, then the responses, from the transport table (transports
// that answer alike, GET and POST, share one).
std::string examples(const operation& op) {
    const std::string path = "/" + std::string{group_name(op.group)} + ".asmx";
    std::string out;
    std::vector<std::pair<std::string, std::string>> responses;  // titles, then content type and body
    for (const auto& row : transports()) {
        const auto s = row.sample(op, path, ns);
        std::string request = s.request_line + "\n";
        for (const auto& h : s.request_headers) {
            if (!h.starts_with("Content-Length")) request += h + "\n";
        }
        if (!s.request_headers.empty()) request += "\n" + s.request_body;
        while (request.ends_with('\n')) request.pop_back();
        out += std::string{row.title} + ":\n\n" + code_block(request);
        const auto response = "(" + s.response_content_type + "):\n\n" + code_block(s.response_body);
        const auto same =
            std::find_if(responses.begin(), responses.end(), [&](const auto& r) { return r.second == response; });
        if (same != responses.end()) same->first += ", " + std::string{row.title};
        else responses.emplace_back(std::string{row.title}, response);
    }
    for (const auto& [titles, response] : responses) out += "Response, " + titles + " " + response;
    return out;
}

}  // namespace

std::string write_api_reference() {
    std::string out =
        "# keeper API reference\n\n"
        "Generated from the operation table (`core/domain/operation_table.cpp`) and the transport table "
        "(`core/wire/transport_table.cpp`) by `keeperctl api-reference`;\n"
        "do not edit by hand. Behaviour and decisions where the contract is silent: `docs/api-decisions.md`.\n"
        "The namespace shown is the default\n"
        "`api_namespace`. Every operation is also described by `GET /<Group>.asmx?WSDL` and\n"
        "`GET /<Group>.asmx?op=<Operation>` (with a test form for local requests). JSON (ASP.NET AJAX) is\n"
        "not in WSDL, as ASMX does not list it there; it is described as OpenAPI 3.1 instead, generated from the\n"
        "same table: `GET /openapi.json` (committed as `docs/openapi.json`, `keeperctl openapi`), to browse and try\n"
        "in Swagger UI at `GET /openapi` (where the test form is shown: this host only by default).\n\n" +
        idempotency_key_guide();
    for (auto g : all_groups()) {
        out += "## " + std::string{group_name(g)} + " (`/" + std::string{group_name(g)} + ".asmx`)\n\n";
        for (const auto& op : operations()) {
            if (op.group != g) continue;
            out += "### " + std::string{op.name} + "\n\n" + std::string{op.summary} + "\n\n" + parameters(op) +
                   results(op) + key_line(op) + examples(op);
        }
    }
    out.pop_back();  // one newline at the end of the file
    return out;
}

}  // namespace keeper::core
