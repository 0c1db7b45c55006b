#pragma once
// What an operation handler gets besides its parameters: the configuration, the store, and what
// the call's audit row is named by (request id, operation, the Idempotency-Key if any, the trace).
#include <optional>
#include <string>
#include <string_view>

#include "core/api/settings.hpp"
#include "core/domain/deadline.hpp"
#include "core/domain/store.hpp"

namespace keeper::core {

// A write's Idempotency-Key and the fingerprints of its call (core/domain/call_fingerprint.hpp);
// all empty without the header.
struct call_key {
    std::string key;
    std::string fingerprint;
};

class call_context {
public:
    // until: the call's deadline; none, call_budget_ms from now. trace_id: its W3C trace, if any.
    // client_addr: the client's address as nginx names it (REMOTE_ADDR), if known; the caller's, which
    // outlives the call, so no call copies it for the one operation that reads it.
    call_context(store& s, const settings& cfg, std::string request_id = {}, std::string_view operation = {},
                 call_key key = {}, bool retried = false, std::optional<deadline> until = std::nullopt,
                 std::string trace_id = {}, std::string_view client_addr = {})
        : m_store(s), m_settings(cfg), m_request_id(std::move(request_id)), m_operation(operation), m_key(std::move(key)),
          m_retried(retried), m_until(until.value_or(deadline::after(cfg.call_budget))), m_trace_id(std::move(trace_id)),
          m_client_addr(client_addr) {}

    const settings& config() const { return m_settings; }
    store& db() { return m_store; }

    audit_tag tag() const {
        return {m_request_id, m_operation, m_key.key, m_key.fingerprint, m_retried, m_until, m_trace_id};
    }
    const deadline& until() const { return m_until; }
    std::string_view client_addr() const { return m_client_addr; }
    // session_id already lower-cased by the caller (sessions are stored lower case).
    session_ref session(std::string_view session_id) const { return {session_id, m_settings.session_ttl}; }

private:
    store& m_store;
    const settings& m_settings;
    std::string m_request_id;
    std::string_view m_operation;
    call_key m_key;
    bool m_retried;
    deadline m_until;
    std::string m_trace_id;
    std::string_view m_client_addr;
};

}  // namespace keeper::core
