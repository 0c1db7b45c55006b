#include "core/wire/transport_table.hpp"

#include <array>

#include "core/api/text_util.hpp"
#include "core/wire/call_decoders.hpp"
#include "core/wire/form_writer.hpp"
#include "core/wire/json_writer.hpp"
#include "core/wire/soap_writer.hpp"

namespace keeper::core {
namespace {

template <soap_version V>
decoded_call decode_soap(const http_request& req, const endpoint_path& ep, const operation*, const media_type& media,
                         const settings& cfg) {
    if constexpr (V == soap_version::v11) {
        return decode_soap_call(req.body, V, req.soap_action, ep.group, cfg.api_namespace);
    } else {
        // SOAP 1.2 names its action as a parameter of the content type.
        const auto action = media.params.find("action");
        const auto hint = action == media.params.end() ? std::nullopt : std::optional{action->second};
        return decode_soap_call(req.body, V, hint, ep.group, cfg.api_namespace);
    }
}

decoded_call decode_query(const http_request& req, const endpoint_path&, const operation* op, const media_type&,
                          const settings&) {
    return decode_form_call(*op, req.query);
}

// A POST reads only its body, never the query.
decoded_call decode_form_body(const http_request& req, const endpoint_path&, const operation* op, const media_type&,
                              const settings&) {
    return decode_form_call(*op, req.body);
}

decoded_call decode_json(const http_request& req, const endpoint_path&, const operation* op, const media_type& media,
                         const settings&) {
    const auto charset = media.params.find("charset");
    if (charset != media.params.end() && to_lower_ascii(charset->second) != "utf-8") {
        throw fault(fault_kind::unsupported_media_type, "A JSON request must be UTF-8.");
    }
    return decode_json_call(*op, req.body);
}

template <soap_version V>
http_response soap_result(const operation& op, const result_value& value, std::string_view ns) {
    return write_soap_result(V, op, value, ns);
}

template <soap_version V>
http_response soap_fault(const fault& f) {
    return write_soap_fault(V, f);
}

constexpr std::array rows{
    transport_row{transport::soap11, "soap11", "SOAP 1.1", "POST", false, "text/xml", &decode_soap<soap_version::v11>,
                  &soap_result<soap_version::v11>, &soap_fault<soap_version::v11>, &sample_soap11},
    transport_row{transport::soap12, "soap12", "SOAP 1.2", "POST", false, "application/soap+xml",
                  &decode_soap<soap_version::v12>, &soap_result<soap_version::v12>, &soap_fault<soap_version::v12>,
                  &sample_soap12},
    transport_row{transport::http_get, "get", "HTTP GET", "GET", true, "", &decode_query, &write_form_result,
                  &write_form_fault, &sample_http_get},
    transport_row{transport::http_post, "post", "HTTP POST", "POST", true, "application/x-www-form-urlencoded",
                  &decode_form_body, &write_form_result, &write_form_fault, &sample_http_post},
    transport_row{transport::json, "json", "JSON", "POST", true, "application/json", &decode_json, &write_json_result,
                  &write_json_fault, &sample_json},
};

// Row i is transport i + 1 (transport::none has none): find_transport indexes, the metrics size
// their counters from transport_count.
constexpr bool rows_in_enum_order() {
    for (std::size_t i = 0; i < rows.size(); ++i) {
        if (static_cast<std::size_t>(rows[i].id) != i + 1) return false;
    }
    return true;
}
static_assert(rows.size() + 1 == transport_count, "one row per transport");
static_assert(rows_in_enum_order(), "rows in the order of enum class transport");

}  // namespace

std::span<const transport_row> transports() { return rows; }

const transport_row* find_transport(transport t) {
    return t == transport::none ? nullptr : &rows[static_cast<std::size_t>(t) - 1];
}

const transport_row* recognise_transport(std::string_view method, bool operation_in_path,
                                         std::string_view media_essence) {
    for (const auto& row : rows) {
        if (row.method == method && row.operation_in_path == operation_in_path &&
            (row.content_type.empty() || row.content_type == media_essence)) {
            return &row;
        }
    }
    return nullptr;
}

std::string_view transport_name(transport t) {
    const auto* row = find_transport(t);
    return row ? row->name : "-";
}

}  // namespace keeper::core
