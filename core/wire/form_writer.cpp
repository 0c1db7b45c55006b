#include "core/wire/form_writer.hpp"

#include "core/api/text_util.hpp"
#include "core/wire/result_text.hpp"

namespace keeper::core {

http_response write_form_result(const operation& op, const result_value& value, std::string_view ns) {
    // The declaration, CRLF, then the element: XmlSerializer's bytes.
    const std::string type{result_type_name(op.result)};
    return {200,
            "text/xml; charset=utf-8",
            {},
            std::string{xml_declaration} + "\r\n<" + type + R"( xmlns=")" + xml_escape_attribute(ns) + R"(">)" +
                result_text(value) + "</" + type + ">"};
}

http_response write_plain_fault(int status, const fault& f) {
    return {status, "text/plain; charset=utf-8", {}, std::string{f.what()} + "\r\n"};
}

http_response write_form_fault(const fault& f) {
    switch (f.kind()) {
        case fault_kind::unknown_operation:
            return write_plain_fault(404, f);
        case fault_kind::server:
            return write_plain_fault(500, f);
        case fault_kind::key_reused:
            return write_plain_fault(422, f);
        case fault_kind::key_in_flight:
            return write_plain_fault(409, f);
        case fault_kind::not_applied:
            return write_plain_fault(503, f);
        default:
            return write_plain_fault(400, f);
    }
}

}  // namespace keeper::core
