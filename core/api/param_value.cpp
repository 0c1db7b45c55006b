#include "core/api/param_value.hpp"

#include "core/api/enum_names.hpp"

namespace keeper::core {

namespace {

// In param_type's order (param_value.hpp).
constexpr enum_names<param_type, 6> xsd_type_names{{"string", "boolean", "int", "long", "double", "Provider"}};
static_assert(xsd_type_names.ends_at(param_type::provider));

}  // namespace

std::string_view xsd_type_name(param_type t) { return xsd_type_names[t]; }

param_value default_value(param_type t) {
    switch (t) {
        case param_type::string:
            return std::string{};
        case param_type::boolean:
            return false;
        case param_type::int32:
            return std::int32_t{0};
        case param_type::int64:
            return std::int64_t{0};
        case param_type::float64:
            return 0.0;
        case param_type::provider:
            return provider::Undefined;
    }
    return std::string{};
}

}  // namespace keeper::core
