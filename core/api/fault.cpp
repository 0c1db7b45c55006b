#include "core/api/fault.hpp"

#include "core/api/text_util.hpp"

namespace keeper::core {

fault::fault(fault_kind kind, const std::string& reason)
    : std::runtime_error(printable_text(reason, fault_reason_max_bytes)), m_kind(kind) {}

std::string_view fault_kind_name(fault_kind kind) {
    switch (kind) {
        case fault_kind::malformed:
            return "malformed";
        case fault_kind::client:
            return "client";
        case fault_kind::unknown_operation:
            return "unknown_operation";
        case fault_kind::version_mismatch:
            return "version_mismatch";
        case fault_kind::must_understand:
            return "must_understand";
        case fault_kind::server:
            return "server";
        case fault_kind::no_such_endpoint:
            return "no_such_endpoint";
        case fault_kind::method_not_allowed:
            return "method_not_allowed";
        case fault_kind::unsupported_media_type:
            return "unsupported_media_type";
        case fault_kind::key_reused:
            return "key_reused";
        case fault_kind::key_in_flight:
            return "key_in_flight";
        case fault_kind::not_applied:
            return "not_applied";
        case fault_kind::body_too_large:
            return "body_too_large";
    }
    return "server";
}

}  // namespace keeper::core
