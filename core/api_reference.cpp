#include "api_reference.hpp"

#include "decoded_call.hpp"
#include "error_descriptions.hpp"
#include "operation_table.hpp"
#include "response_writer.hpp"
#include "samples.hpp"

namespace keeper::core {
namespace {

constexpr std::string_view ns = "http://tempuri.org/";

std::string code_block(const std::string& text) { return "```\n" + text + "\n```\n\n"; }

std::string parameters(const operation& op) {
    if (op.params.empty()) return "Parameters: none.\n\n";
    std::string out = "| parameter | type |\n|---|---|\n";
    for (const auto& p : op.params) out += "| " + std::string{p.name} + " | " + std::string{xsd_type_name(p.type)} + " |\n";
    return out + "\n";
}

std::string results(const operation& op) {
    if (op.results.empty()) return "Result: `" + std::string{result_type_name(op.result)} + "`; never a result code.\n\n";
    std::string out = "Result: `int`, one of:\n\n| code | meaning |\n|---|---|\n";
    for (auto code : op.results) {
        const int n = static_cast<int>(code);
        out += "| " + std::to_string(n) + " | " + describe_error(n, culture_english) + " |\n";
    }
    return out + "\n";
}

std::string examples(const operation& op) {
    const std::string path = "/" + std::string{group_name(op.group)} + ".asmx", name{op.name};
    const auto form = sample_form(op);
    std::string out = "SOAP 1.1:\n\n" +
        code_block("POST " + path + "\nContent-Type: text/xml; charset=utf-8\nSOAPAction: \"" + soap_action_for(ns, op.name) +
                   "\"\n\n" + sample_soap_envelope(op, ns, soap_version::v11, false));
    out += "SOAP 1.2:\n\n" + code_block("POST " + path + "\nContent-Type: application/soap+xml; charset=utf-8\n\n" +
                                        sample_soap_envelope(op, ns, soap_version::v12, false));
    out += "HTTP GET:\n\n" + code_block("GET " + path + "/" + name + (form.empty() ? "" : "?" + form));
    out += "HTTP POST:\n\n" + code_block("POST " + path + "/" + name + "\nContent-Type: application/x-www-form-urlencoded\n\n" + form);
    out += "Response (HTTP GET/POST):\n\n" + code_block(sample_plain_response(op, ns));
    return out;
}

}  // namespace

std::string write_api_reference() {
    std::string out =
        "# keeper API reference\n\n"
        "Generated from the operation table (`core/operation_table.cpp`) by `keeperctl api-reference`;\n"
        "do not edit by hand. Behaviour and decisions where the contract is silent: `docs/api-decisions.md`.\n"
        "The namespace shown is the default\n"
        "`api_namespace`. Every operation is also described by `GET /<Group>.asmx?WSDL` and\n"
        "`GET /<Group>.asmx?op=<Operation>`.\n\n";
    for (auto g : all_groups()) {
        out += "## " + std::string{group_name(g)} + " (`/" + std::string{group_name(g)} + ".asmx`)\n\n";
        for (const auto& op : operations()) {
            if (op.group != g) continue;
            out += "### " + std::string{op.name} + "\n\n" + std::string{op.summary} + "\n\n" + parameters(op) + results(op) + examples(op);
        }
    }
    out.pop_back();  // one newline at the end of the file
    return out;
}

}  // namespace keeper::core
