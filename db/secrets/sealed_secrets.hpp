#pragma once
// Shared secrets sealed at rest (docs/operations.md, "The secret key"). The protocol makes the
// server recompute MD5(name:secret:session), so keeper must be able to read a login's or an
// application's secret: it keeps them encrypted with AES-256-GCM under a key that is not in the
// database, bound to their row (the login or app id is the associated data, so a sealed value
// copied onto another row does not open).
//
// Stored form: "sealed:v1:<key id>:<base64 of 12-byte nonce | ciphertext | 16-byte tag>".
// The key file: one key a line, "<key id> <base64 of 32 bytes>", '#' comments; the first line is
// the current key (it seals), the others only open what they sealed until keeperctl rotate-key
// has re-sealed everything with the current one.
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace keeper::db {

class key_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class secret_keyring {
public:
    // Throws key_error naming the line that is wrong.
    static secret_keyring parse(std::string_view file_text);
    // Reads the file; throws key_error (with the path) when it is missing, unreadable or wrong.
    static secret_keyring load(const std::string& path);
    // A new key line "<id> <base64>" from the system's random source.
    static std::string new_key_line(std::string_view id);
    // A key id no other key has: "k" and the UTC time to the second, then 8 random hex digits
    // (two keys made in the same second, or on two hosts, still differ).
    static std::string new_key_id();

    const std::string& current_id() const { return m_keys.front().id; }
    bool has(std::string_view id) const;
    // The file it was loaded from ("" when parsed from text): a writer of sealed secrets reads it
    // again under the rotation's lock (seal_under_current_key).
    const std::string& path() const { return m_path; }

    // HMAC-SHA256 of message (lower hex) under each key's fingerprint key, the current key's first:
    // what an Idempotency-Key's fingerprint is stored as, so a copy of the database alone cannot
    // try guesses of a short protection code against it (docs/design.md, "Idempotency keys").
    // Each key's fingerprint key is derived from it (HMAC under the key of a fixed label), so the
    // sealing key itself is used for nothing else.
    std::vector<std::string> keyed_digests(std::string_view message) const;

    // `associated` names the row, e.g. "logins:alice".
    std::string seal(std::string_view secret, std::string_view associated) const;
    // The secret, or nullopt when the value is not sealed (a secret stored before 0005).
    // Throws key_error when it is sealed but does not open (unknown key id, wrong key, tampered).
    std::optional<std::string> open(std::string_view stored, std::string_view associated) const;

private:
    struct key {
        std::string id;
        std::string bytes;            // 32
        std::string fingerprint_key;  // derived from bytes once, when the file is read (keyed_digests)
    };
    const key& find(std::string_view id) const;
    std::vector<key> m_keys;
    std::string m_path;
};

bool is_sealed(std::string_view stored);
// The key id of a sealed value ("" when not sealed).
std::string sealed_key_id(std::string_view stored);

// The associated data of a login's and an application's secret.
std::string login_secret_row(std::string_view login);
std::string application_secret_row(std::string_view app_id);

}  // namespace keeper::db
