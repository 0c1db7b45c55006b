#include "core/api/param_value.hpp"

namespace keeper::core {

std::string_view xsd_type_name(param_type t) {
    switch (t) {
        case param_type::string:
            return "string";
        case param_type::boolean:
            return "boolean";
        case param_type::int32:
            return "int";
        case param_type::int64:
            return "long";
        case param_type::float64:
            return "double";
        case param_type::provider:
            return "Provider";
    }
    return "string";
}

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
