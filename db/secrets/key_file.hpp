#pragma once
// The keys a worker opens sealed secrets with: its key file, read again when a sealed value names a
// key the copy in memory lacks, at most once a second. So a key added to the file (a rotation:
// docs/operations.md, "The secret key") opens what keeperctl rotate-key seals with it, whether or
// not this worker was started after the change.
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "db/secrets/sealed_secrets.hpp"

namespace keeper::db {

class key_file {
public:
    // Reads the file; throws key_error (with the path) when it is missing, unreadable or wrong.
    static std::shared_ptr<const key_file> load(const std::string& path);
    // Fixed keys, never read again (tests).
    explicit key_file(secret_keyring keys);

    // The secret of a sealed value; throws key_error when it does not open with the file's keys.
    std::string open(const std::string& sealed, const std::string& associated) const;
    // secret_keyring::keyed_digests under the keys read last.
    std::vector<std::string> keyed_digests(std::string_view message) const;

private:
    key_file(std::string path, secret_keyring keys);
    std::shared_ptr<const secret_keyring> current() const;
    // The file read again, unless it was read within the last second or cannot be read now.
    std::shared_ptr<const secret_keyring> reread() const;

    std::string m_path;  // empty: fixed keys
    mutable std::mutex m_mutex;
    mutable std::shared_ptr<const secret_keyring> m_keys;
    mutable std::chrono::steady_clock::time_point m_read_at;
};

}  // namespace keeper::db
