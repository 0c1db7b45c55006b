#include "core/wire/result_text.hpp"

#include "core/api/text_util.hpp"

namespace keeper::core {

std::string_view result_type_name(result_type type) {
    switch (type) {
        case result_type::int32:
            return "int";
        case result_type::date_time:
            return "dateTime";
        case result_type::string:
            return "string";
    }
    return "string";
}

std::string result_text(const result_value& value) {
    if (const auto* code = std::get_if<result_code>(&value)) return std::to_string(static_cast<int>(*code));
    if (const auto* time = std::get_if<utc_time>(&value)) return format_date_time(*time);
    return xml_escape_text(std::get<std::string>(value));
}

}  // namespace keeper::core
