#include "core/pages/openapi_writer.hpp"

#include <nlohmann/json.hpp>

#include "core/api/provider.hpp"
#include "core/domain/error_descriptions.hpp"
#include "core/domain/operation_table.hpp"
#include "core/domain/param_rules.hpp"

namespace keeper::core {
namespace {

using doc = nlohmann::ordered_json;

// The errors every JSON call can get, each as {"Message"} with `jsonerror: true`
// (docs/api-decisions.md, "JSON"). 422 only for writes (an Idempotency-Key used with other
// parameters).
struct error_status {
    const char* status;
    const char* meaning;
};
constexpr error_status call_errors[] = {
    {"400", "The request is malformed or a parameter is missing or of the wrong type."},
    {"404", "No such operation in this group."},
    {"413", "The request body is larger than the service's body limit."},
    {"415", "The body is not UTF-8 JSON."},
    {"500", "A server fault; its message gives the request id when the outcome of a write is unknown."},
    {"502",
     "The worker's answer was lost: the outcome of the call is unknown. Check it at /call-outcome, or repeat a write "
     "only with the same Idempotency-Key."},
    {"503",
     "Not applied: the service was busy, not ready or unavailable, or the call ran out of time. Nothing was changed; "
     "repeat it after Retry-After."},
    {"504",
     "No answer in time: the outcome of the call is unknown. Check it at /call-outcome, or repeat a write only with "
     "the same Idempotency-Key."},
};
// nginx limits the calls that test a credential (an authHash) per client address
// (nginx/keeper-limits.conf): only they answer 429.
constexpr error_status too_many = {
    "429", "Too many credential-testing calls from this address; try again later (Retry-After)."};

bool tests_a_credential(const operation& op) {
    for (const auto& p : op.params) {
        if (p.name == "authHash") return true;
    }
    return false;
}

// Only writes take an Idempotency-Key, so only they answer these.
constexpr error_status key_errors[] = {
    {"409",
     "A call with this Idempotency-Key is still running, or waited too long for a lock; nothing changed. Repeat it "
     "with the same key (Retry-After)."},
    {"422", "The Idempotency-Key was used before with other parameters."},
};

doc param_schema(param_type t) {
    switch (t) {
        case param_type::string:
            return {{"type", {"string", "null"}}};
        case param_type::boolean:
            return {{"type", "boolean"}};
        case param_type::int32:
            return {{"type", "integer"}, {"format", "int32"}};
        case param_type::int64:
            return {{"type", "integer"}, {"format", "int64"}};
        case param_type::float64:
            return {{"type", "number"}, {"format", "double"}};
        case param_type::provider:
            return {{"$ref", "#/components/schemas/Provider"}};
    }
    return {};
}

doc result_schema(const operation& op) {
    switch (op.result) {
        case result_type::int32: {
            doc codes = doc::array();
            std::string meanings;
            for (auto c : op.results) {
                const int n = static_cast<int>(c);
                codes.push_back(n);
                meanings +=
                    (meanings.empty() ? "" : "; ") + std::to_string(n) + ": " + describe_error(n, culture_english);
            }
            return {{"type", "integer"}, {"format", "int32"}, {"enum", codes}, {"description", meanings}};
        }
        case result_type::date_time:
            // On the wire "\/Date(ms)\/" (ASP.NET AJAX); "\/" is JSON's escaped "/", so the string is /Date(ms)/.
            return {{"type", "string"},
                    {"pattern", "^/Date\\(-?[0-9]+\\)/$"},
                    {"description", "UTC milliseconds since 1970-01-01, as ASP.NET AJAX writes a DateTime."}};
        case result_type::string:
            return {{"type", "string"}};
    }
    return {};
}

// The type's schema with what param_rules.hpp says of the parameter: its meaning and the format
// the operation holds it to, so a generated client refuses what keeper would answer 1 for.
doc property_schema(const param_spec& p) {
    auto schema = param_schema(p.type);
    const auto* rule = find_param_rule(p.name);
    if (!rule) return schema;
    schema["description"] = rule->description;
    if (rule->min_length) schema["minLength"] = *rule->min_length;
    if (rule->max_length) schema["maxLength"] = *rule->max_length;
    if (!rule->pattern.empty()) schema["pattern"] = rule->pattern;
    if (rule->minimum) schema["minimum"] = *rule->minimum;
    if (!rule->allowed.empty()) schema["enum"] = rule->allowed;
    return schema;
}

doc request_body(const operation& op) {
    doc properties = doc::object();
    doc required = doc::array();
    doc example = doc::object();
    for (const auto& p : op.params) {
        properties[std::string{p.name}] = property_schema(p);
        required.push_back(p.name);
        if (const auto* rule = find_param_rule(p.name)) example[std::string{p.name}] = doc::parse(rule->example);
    }
    doc schema = {{"type", "object"}, {"properties", properties}};
    if (!required.empty()) schema["required"] = required;
    return {{"required", true}, {"content", {{"application/json", {{"schema", schema}, {"example", example}}}}}};
}

// A successful answer's sample: the first result code the operation lists (0), or its value.
doc result_example(const operation& op) {
    switch (op.result) {
        case result_type::int32:
            return {{"d", op.results.empty() ? 0 : static_cast<int>(op.results.front())}};
        case result_type::date_time:
            return {{"d", "/Date(1795673589108)/"}};
        case result_type::string:
            return {{"d", "Authentication failed."}};
    }
    return {};
}

doc responses(const operation& op) {
    doc out = {{"200",
                {{"description", "The call ran; `d` holds its result."},
                 {"content",
                  {{"application/json",
                    {{"schema", {{"type", "object"}, {"required", {"d"}}, {"properties", {{"d", result_schema(op)}}}}},
                     {"example", result_example(op)}}}}}}}};
    out["200"]["headers"] = {{"X-Request-Id", {{"$ref", "#/components/headers/XRequestId"}}}};
    if (op.effect == call_effect::writes) {
        out["200"]["headers"]["Idempotent-Replayed"] = {{"$ref", "#/components/headers/IdempotentReplayed"}};
    }
    for (const auto& e : call_errors)
        out[e.status] = {{"$ref", std::string{"#/components/responses/Error"} + e.status}};
    if (tests_a_credential(op))
        out[too_many.status] = {{"$ref", std::string{"#/components/responses/Error"} + too_many.status}};
    if (op.effect == call_effect::writes) {
        for (const auto& e : key_errors)
            out[e.status] = {{"$ref", std::string{"#/components/responses/Error"} + e.status}};
    }
    return out;
}

doc path_item(const operation& op) {
    doc post = {{"operationId", op.name},
                {"tags", {group_name(op.group)}},
                {"summary", op.summary},
                {"requestBody", request_body(op)},
                {"responses", responses(op)}};
    if (op.effect == call_effect::writes) post["parameters"] = {{{"$ref", "#/components/parameters/IdempotencyKey"}}};
    return {{"post", post}};
}

doc error_response(const error_status& e) {
    return {{"description", e.meaning},
            {"headers",
             {{"jsonerror",
               {{"description", "Always \"true\": ASP.NET AJAX's mark of an error."},
                {"schema", {{"type", "string"}, {"const", "true"}}}}},
              {"X-Request-Id", {{"$ref", "#/components/headers/XRequestId"}}}}},
            {"content", {{"application/json", {{"schema", {{"$ref", "#/components/schemas/Error"}}}}}}}};
}

doc components() {
    doc provider_names_list = doc::array();
    for (const auto name : provider_names()) provider_names_list.push_back(name);
    doc error_responses = doc::object();
    for (const auto& e : call_errors) error_responses[std::string{"Error"} + e.status] = error_response(e);
    error_responses[std::string{"Error"} + too_many.status] = error_response(too_many);
    for (const auto& e : key_errors) error_responses[std::string{"Error"} + e.status] = error_response(e);
    return {{"schemas",
             {{"Provider",
               {{"description", "A device platform, by name or by its number (its position in the list, from 0)."},
                {"oneOf",
                 {{{"type", "string"}, {"enum", provider_names_list}},
                  {{"type", "integer"}, {"minimum", 0}, {"maximum", provider_names_list.size() - 1}}}}}},
              {"Error",
               {{"type", "object"}, {"required", {"Message"}}, {"properties", {{"Message", {{"type", "string"}}}}}}}}},
            {"responses", error_responses},
            {"parameters",
             {{"IdempotencyKey",
               {{"name", "Idempotency-Key"},
                {"in", "header"},
                {"required", false},
                {"description",
                 "Makes a repeat of this write safe: the same key with the same parameters answers the "
                 "first call's result and changes nothing (docs/api.md, \"Idempotency-Key\")."},
                {"schema", {{"type", "string"}, {"minLength", 1}, {"maxLength", 255}, {"pattern", "^[!-~]+$"}}}}}}},
            {"headers",
             {{"IdempotentReplayed",
               {{"description", "\"true\" when the answer is a recorded result of an earlier call with the same key."},
                {"schema", {{"type", "string"}, {"const", "true"}}}}},
              {"XRequestId",
               {{"description",
                 "The request's id: the time in milliseconds (13 digits) and 19 random hex digits. The same id "
                 "is in keeper's log line, the call's audit row and a server fault's message: give it to "
                 "support. Sent on every answer a worker gives."},
                {"schema", {{"type", "string"}, {"pattern", "^[0-9a-f]{32}$"}}}}}}}};
}

}  // namespace

std::string write_openapi() {
    doc tags = doc::array();
    for (const auto g : all_groups()) {
        tags.push_back({{"name", group_name(g)}, {"description", "/" + std::string{group_name(g)} + ".asmx"}});
    }
    doc paths = doc::object();
    for (const auto& op : operations()) {
        paths["/" + std::string{group_name(op.group)} + ".asmx/" + std::string{op.name}] = path_item(op);
    }
    const doc d = {{"openapi", "3.1.0"},
                   {"info",
                    {{"title", "keeper mobile API, JSON calls"},
                     {"version", KEEPER_VERSION},
                     {"description",
                      "The operations as ASP.NET AJAX clients call them: POST application/json with the "
                      "parameters by name, the result in {\"d\": ...}. The same operations over SOAP are "
                      "described by each group's WSDL (?WSDL)."}}},
                   {"servers", {{{"url", "/"}}}},
                   // No HTTP authentication: a call carries its credentials as parameters (sessionId,
                   // authHash), as the contract has them (docs/api-decisions.md, "OpenAPI").
                   {"security", doc::array()},
                   {"tags", tags},
                   {"paths", paths},
                   {"components", components()}};
    return d.dump(2) + "\n";
}

}  // namespace keeper::core
