#include "core/api/fault.hpp"

#include "core/api/enum_names.hpp"
#include "core/api/text_util.hpp"

namespace keeper::core {

fault::fault(fault_kind kind, const std::string& reason)
    : std::runtime_error(printable_text(reason, fault_reason_max_bytes)), m_kind(kind) {}

namespace {

// In fault_kind's order (fault.hpp).
constexpr enum_names<fault_kind, fault_kind_count> fault_kind_names{{
    "malformed",
    "client",
    "unknown_operation",
    "version_mismatch",
    "must_understand",
    "server",
    "no_such_endpoint",
    "method_not_allowed",
    "unsupported_media_type",
    "key_reused",
    "key_in_flight",
    "not_applied",
    "body_too_large",
}};

}  // namespace

std::string_view fault_kind_name(fault_kind kind) { return fault_kind_names[kind]; }

}  // namespace keeper::core
