#pragma once
// What every answer must be, whatever came in (docs/api-decisions.md, "Errors"): a SOAP or XML answer parses as
// XML; a JSON answer is one JSON object, {"d":…} or {"Message":…}, the OpenAPI document
// (GET /openapi.json) or a look at a call (GET /call-outcome); a text answer is printable UTF-8 lines. A broken promise
// aborts, which libFuzzer reports.
#include <libxml/parser.h>

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <string_view>

#include "core/api/http_message.hpp"
#include "core/api/text_util.hpp"

namespace keeper::fuzz {

inline void require(bool ok) {
    if (!ok) std::abort();
}

inline bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

inline void check_answer(const core::http_response& r) {
    const std::string_view type = r.content_type;
    if (starts_with(type, "text/xml") || starts_with(type, "application/soap+xml")) {
        xmlDocPtr doc = xmlReadMemory(r.body.data(), static_cast<int>(r.body.size()), nullptr, nullptr,
                                      XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
        require(doc != nullptr);
        xmlFreeDoc(doc);
    } else if (starts_with(type, "application/json")) {
        const auto doc = nlohmann::json::parse(r.body, nullptr, false);
        require(doc.is_object());
        if (r.status == 200 && doc.contains("openapi")) return;  // the document, not a call's answer
        if (r.status == 200 && doc.contains("requestId")) {      // a look at a call (core/pipeline/call_outcome.hpp)
            require(doc["requestId"].is_string() && doc["session"].is_number_integer());
            if (doc.contains("outcome")) {
                const auto& outcome = doc["outcome"];
                require(outcome == "recorded" || outcome == "none" || outcome == "pending");
            }
            return;
        }
        require(doc.size() == 1 && (doc.contains("d") || doc.contains("Message")));
        require(doc.contains("d") == (r.status == 200));
    } else if (starts_with(type, "text/plain")) {
        require(core::utf8_length(r.body).has_value());
        for (const unsigned char c : r.body) require(c >= 0x20 || c == '\r' || c == '\n');
    }
}

}  // namespace keeper::fuzz
