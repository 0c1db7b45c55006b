#pragma once
// The one error type that reaches a client. Everything else thrown inside a call is turned into
// a generic server fault at one boundary (request_router.cpp), with details kept for the log.
#include <cstddef>
#include <stdexcept>
#include <string>

namespace keeper::core {

// Each kind's name is in fault_kind_names (fault.cpp), in this order.
enum class fault_kind {
    malformed,               // unreadable XML, empty body, DOCTYPE: HTTP 400
    client,                  // decodes, but names a bad value, action or parameter
    unknown_operation,       // no such operation in this group
    version_mismatch,        // envelope namespace is not the content type's SOAP version
    must_understand,         // a header block with mustUnderstand we do not understand
    server,                  // anything that failed inside: generic reason only
    no_such_endpoint,        // path names no group: 404
    method_not_allowed,      // HEAD, PUT, DELETE, OPTIONS...: 405
    unsupported_media_type,  // POST that is neither SOAP nor form: 415
    key_reused,              // an Idempotency-Key already used with other parameters: 422 (SOAP: 500, Client)
    key_in_flight,           // a keyed call that waited past lock_timeout, changing nothing: 409 and
                             // Retry-After (SOAP: 500, Server): repeat it with the same key
    not_applied,             // the call did not run, or rolled back: nothing changed. 503 and
                             // Retry-After (SOAP: 500, Server): it may be repeated
    body_too_large,          // over the configured body limit: 413
};
// How many kinds there are (metrics.hpp sizes its counters from it). Keep it last + 1.
inline constexpr std::size_t fault_kind_count = static_cast<std::size_t>(fault_kind::body_too_large) + 1;

// A reason may quote what the client sent. Every fault's reason is made printable here, once:
// control bytes (NUL included, which would cut what()), invalid UTF-8 and characters XML 1.0
// forbids become U+FFFD, and it is bounded, so every writer can put it into XML or a text line.
inline constexpr std::size_t fault_reason_max_bytes = 512;

class fault : public std::runtime_error {
public:
    // reason is public: one line that names what was wrong, never internals.
    fault(fault_kind kind, const std::string& reason);
    fault_kind kind() const noexcept { return m_kind; }

private:
    fault_kind m_kind;
};

std::string_view fault_kind_name(fault_kind kind);

}  // namespace keeper::core
