#pragma once
// What an operation handler gets besides its parameters: the configuration, the store, and the
// call's frame (call_frame.hpp), which names its audit row.
#include <string_view>

#include "core/api/settings.hpp"
#include "core/domain/call_frame.hpp"
#include "core/domain/store.hpp"

namespace keeper::core {

class call_context {
public:
    // frame: the caller's, which outlives the call.
    call_context(store& s, const settings& cfg, const call_frame& frame)
        : m_store(s), m_settings(cfg), m_frame(frame) {}

    const settings& config() const { return m_settings; }
    store& db() { return m_store; }

    const call_frame& frame() const { return m_frame; }
    const deadline& until() const { return m_frame.until; }
    // session_id already lower-cased by the caller (sessions are stored lower case).
    session_ref session(std::string_view session_id) const { return {session_id, m_settings.session_ttl}; }

private:
    store& m_store;
    const settings& m_settings;
    const call_frame& m_frame;
};

}  // namespace keeper::core
