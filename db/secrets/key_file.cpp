#include "db/secrets/key_file.hpp"

namespace keeper::db {
namespace {
constexpr auto reread_interval = std::chrono::seconds{1};
}

std::shared_ptr<const key_file> key_file::load(const std::string& path) {
    return std::shared_ptr<const key_file>(new key_file(path, secret_keyring::load(path)));
}

key_file::key_file(secret_keyring keys)
    : m_keys(std::make_shared<const secret_keyring>(std::move(keys))), m_read_at(std::chrono::steady_clock::now()) {}

key_file::key_file(std::string path, secret_keyring keys)
    : m_path(std::move(path)),
      m_keys(std::make_shared<const secret_keyring>(std::move(keys))),
      m_read_at(std::chrono::steady_clock::now()) {}

std::shared_ptr<const secret_keyring> key_file::current() const {
    std::lock_guard lock{m_mutex};
    return m_keys;
}

std::shared_ptr<const secret_keyring> key_file::reread() const {
    std::lock_guard lock{m_mutex};
    const auto now = std::chrono::steady_clock::now();
    if (m_path.empty() || now - m_read_at < reread_interval) return nullptr;
    m_read_at = now;
    try {
        m_keys = std::make_shared<const secret_keyring>(secret_keyring::load(m_path));
    } catch (const key_error&) {
        return nullptr;  // a file being rewritten, or broken: keep the keys in hand
    }
    return m_keys;
}

std::string key_file::open(const std::string& sealed, const std::string& associated) const {
    const auto keys = current();
    const auto id = sealed_key_id(sealed);
    if (!keys->has(id)) {
        if (const auto fresh = reread(); fresh && fresh->has(id)) return *fresh->open(sealed, associated);
    }
    return *keys->open(sealed, associated);  // throws key_error naming the key it lacks
}

std::vector<std::string> key_file::keyed_digests(std::string_view message) const {
    return current()->keyed_digests(message);
}

}  // namespace keeper::db
