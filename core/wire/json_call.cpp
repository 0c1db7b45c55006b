// ASP.NET AJAX JSON request body → decoded_call (docs/api-decisions.md, JSON). The body is one
// JSON object whose members are the parameters by name, each a JSON value of its type. Parsing
// is nlohmann/json's (strict RFC 8259: no comments, no trailing commas, UTF-8 checked), bounded
// by the body limit and by json_max_depth here.
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>

#include "core/api/fault.hpp"
#include "core/api/text_util.hpp"
#include "core/wire/call_decoders.hpp"

namespace keeper::core {
namespace {

using json = nlohmann::json;

// Parameters are scalars, so anything nested deeper than a value inside the object is wrong
// anyway; the bound only keeps a hostile body from costing more than its bytes.
constexpr int json_max_depth = 32;

fault mistyped(const param_spec& p, const json& value) {
    return fault(fault_kind::client,
                 "Parameter '" + std::string{p.name} + "' has an invalid value " +
                     shorten_for_message(value.dump(-1, ' ', false, json::error_handler_t::replace)) +
                     ": not a valid " + std::string{xsd_type_name(p.type)} + ".");
}

template <typename T>
std::optional<T> json_integer(const json& v) {
    if (v.is_number_unsigned()) {
        const auto u = v.get<std::uint64_t>();
        if (u <= static_cast<std::uint64_t>(std::numeric_limits<T>::max())) return static_cast<T>(u);
    } else if (v.is_number_integer()) {
        const auto i = v.get<std::int64_t>();
        if (i >= std::numeric_limits<T>::min() && i <= std::numeric_limits<T>::max()) return static_cast<T>(i);
    }
    return std::nullopt;
}

std::optional<param_value> convert(param_type type, const json& v) {
    switch (type) {
        case param_type::string:
            if (v.is_null()) return default_value(type);  // as a nil SOAP element: the null string
            if (v.is_string()) return param_value{v.get<std::string>()};
            return std::nullopt;
        case param_type::boolean:
            if (v.is_boolean()) return param_value{v.get<bool>()};
            return std::nullopt;
        case param_type::int32:
            if (auto i = json_integer<std::int32_t>(v)) return param_value{*i};
            return std::nullopt;
        case param_type::int64:
            if (auto i = json_integer<std::int64_t>(v)) return param_value{*i};
            return std::nullopt;
        case param_type::float64:
            if (v.is_number() && std::isfinite(v.get<double>())) return param_value{v.get<double>()};
            return std::nullopt;
        case param_type::provider:
            // By name, as the WSDL lists them; JavaScriptSerializer also takes the number.
            if (v.is_string()) {
                if (auto p = provider_from_name(v.get<std::string>())) return param_value{*p};
            } else if (auto n = json_integer<std::int32_t>(v);
                       n && *n >= 0 && static_cast<std::size_t>(*n) < provider_names().size()) {
                return param_value{static_cast<provider>(*n)};
            }
            return std::nullopt;
    }
    return std::nullopt;
}

json parse_body(std::string_view body) {
    if (trim_xml_space(body).empty()) return json::object();  // ASP.NET reads no body as no parameters
    std::set<std::string> names;
    const auto guard = [&](int depth, json::parse_event_t event, json& parsed) {
        if (depth > json_max_depth) throw fault(fault_kind::malformed, "The JSON body is nested too deeply.");
        if (event == json::parse_event_t::key && depth == 1 && !names.insert(parsed.get<std::string>()).second) {
            throw fault(fault_kind::client,
                        "Parameter '" + shorten_for_message(parsed.get<std::string>()) + "' is given more than once.");
        }
        return true;
    };
    try {
        return json::parse(body.begin(), body.end(), guard, true, false);
    } catch (const json::exception& e) {
        const auto* parse = dynamic_cast<const json::parse_error*>(&e);
        throw fault(fault_kind::malformed,
                    "The request body is not valid JSON" +
                        (parse ? " (at byte " + std::to_string(parse->byte) + ")" : std::string{}) + ".");
    }
}

}  // namespace

decoded_call decode_json_call(const operation& op, std::string_view body) {
    const auto doc = parse_body(body);
    if (!doc.is_object())
        throw fault(fault_kind::client, "The JSON body must be an object of the operation's parameters by name.");
    decoded_call call{&op, {}};
    for (const auto& p : op.params) {
        const auto it = doc.find(std::string{p.name});
        if (it == doc.end()) throw fault(fault_kind::client, "Missing parameter: " + std::string{p.name} + ".");
        auto value = convert(p.type, *it);
        if (!value) throw mistyped(p, *it);
        call.args.push_back(std::move(*value));
    }
    return call;
}

}  // namespace keeper::core
