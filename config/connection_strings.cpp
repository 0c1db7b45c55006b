#include "config/connection_strings.hpp"

#include <cstdlib>
#include <fstream>
#include <string_view>

namespace keeper::config {

using core::settings;

std::string secret_key_path(const settings& s) {
    if (const char* dir = std::getenv("CREDENTIALS_DIRECTORY"); dir && *dir) {
        const std::string credential = std::string{dir} + "/secret.keys";
        if (std::ifstream{credential}) return credential;
    }
    return s.secret_key_file;
}

namespace {

// key=value added to a libpq connection string (key=value form or URI) unless it names key.
std::string with_param(const std::string& url, std::string_view key, const std::string& value) {
    if (url.find(key) != std::string::npos) return url;
    const bool uri = url.rfind("postgresql://", 0) == 0 || url.rfind("postgres://", 0) == 0;
    if (!uri) return url + " " + std::string{key} + "=" + value;
    return url + (url.find('?') == std::string::npos ? "?" : "&") + std::string{key} + "=" + value;
}

}  // namespace

std::string worker_conninfo(const settings& s) {
    auto url = with_param(s.database_url, "connect_timeout", std::to_string(s.connect_timeout.count()));
    // A host that died without closing its sockets (power, network): TCP keepalives find an idle
    // connection dead in about 20 s, and tcp_user_timeout a call whose bytes go unacknowledged,
    // instead of the kernel's retransmission timeout of some 15 minutes.
    url = with_param(url, "keepalives_idle", "10");
    url = with_param(url, "keepalives_interval", "3");
    url = with_param(url, "keepalives_count", "3");
    return with_param(url, "tcp_user_timeout", std::to_string(s.statement_timeout.count() + 5000));
}

std::string admin_url(const settings& s) {
    return s.admin_database_url.empty() ? s.database_url : s.admin_database_url;
}
std::string provision_url(const settings& s) {
    return s.provision_database_url.empty() ? admin_url(s) : s.provision_database_url;
}
std::string maintain_url(const settings& s) {
    return s.maintain_database_url.empty() ? admin_url(s) : s.maintain_database_url;
}

}  // namespace keeper::config
