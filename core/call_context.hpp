#pragma once
// What an operation handler gets besides its parameters: the configuration, a transaction that
// is opened on first use (GetUtcNow and GetErrorDesc never touch the database), and the audit
// principal it resolved.
#include <memory>
#include <string>

#include "settings.hpp"
#include "store.hpp"

namespace keeper::core {

class call_context {
public:
    call_context(store& s, const settings& cfg, std::string request_id = {})
        : m_store(s), m_settings(cfg), m_request_id(std::move(request_id)) {}

    const settings& config() const { return m_settings; }
    const std::string& request_id() const { return m_request_id; }

    transaction& tx() {
        if (!m_tx) m_tx = m_store.begin();
        return *m_tx;
    }
    bool has_transaction() const { return m_tx != nullptr; }

    // Who the audit row names.
    void set_audit_login(std::string login) { m_audit_login = std::move(login); }
    void set_audit_app(std::string app_id) { m_audit_app = std::move(app_id); }
    const std::string& audit_login() const { return m_audit_login; }
    const std::string& audit_app() const { return m_audit_app; }

private:
    store& m_store;
    const settings& m_settings;
    std::string m_request_id;
    std::unique_ptr<transaction> m_tx;
    std::string m_audit_login;
    std::string m_audit_app;
};

}  // namespace keeper::core
