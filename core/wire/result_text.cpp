#include "core/wire/result_text.hpp"

#include "core/api/enum_names.hpp"
#include "core/api/text_util.hpp"

namespace keeper::core {

namespace {

// In result_type's order (core/api/operation.hpp).
constexpr enum_names<result_type, 3> result_type_names{{"int", "dateTime", "string"}};
static_assert(result_type_names.ends_at(result_type::string));

}  // namespace

std::string_view result_type_name(result_type type) { return result_type_names[type]; }

std::string result_text(const result_value& value) {
    if (const auto* code = std::get_if<result_code>(&value)) return std::to_string(static_cast<int>(*code));
    if (const auto* time = std::get_if<utc_time>(&value)) return format_date_time(*time);
    return xml_escape_text(std::get<std::string>(value));
}

}  // namespace keeper::core
