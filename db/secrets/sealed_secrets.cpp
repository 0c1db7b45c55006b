#include "db/secrets/sealed_secrets.hpp"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <memory>
#include <sstream>

namespace keeper::db {
namespace {

constexpr std::string_view prefix = "sealed:v1:";
constexpr std::size_t key_bytes = 32;
constexpr std::size_t nonce_bytes = 12;
constexpr std::size_t tag_bytes = 16;

using cipher_ctx = std::unique_ptr<EVP_CIPHER_CTX, decltype(&EVP_CIPHER_CTX_free)>;

cipher_ctx new_ctx() {
    cipher_ctx ctx{EVP_CIPHER_CTX_new(), &EVP_CIPHER_CTX_free};
    if (!ctx) throw key_error("OpenSSL: no cipher context");
    return ctx;
}

const unsigned char* bytes(std::string_view s) { return reinterpret_cast<const unsigned char*>(s.data()); }
unsigned char* bytes(std::string& s) { return reinterpret_cast<unsigned char*>(s.data()); }
int length(std::string_view s) { return static_cast<int>(s.size()); }

std::string base64(std::string_view raw) {
    std::string out(4 * ((raw.size() + 2) / 3), '\0');
    const int n = EVP_EncodeBlock(bytes(out), bytes(raw), length(raw));
    out.resize(static_cast<std::size_t>(n));
    return out;
}

std::optional<std::string> unbase64(std::string_view text) {
    if (text.empty() || text.size() % 4 != 0) return std::nullopt;
    std::string out(3 * text.size() / 4, '\0');
    const int n = EVP_DecodeBlock(bytes(out), bytes(text), length(text));
    if (n < 0) return std::nullopt;
    std::size_t padding = 0;
    if (text.back() == '=') ++padding;
    if (text.size() > 1 && text[text.size() - 2] == '=') ++padding;
    out.resize(static_cast<std::size_t>(n) - padding);
    return out;
}

// HMAC-SHA256 of message under key, raw.
std::string hmac_sha256(std::string_view key, std::string_view message) {
    std::string out(EVP_MAX_MD_SIZE, '\0');
    unsigned int n = 0;
    if (!HMAC(EVP_sha256(), key.data(), length(key), bytes(message), message.size(), bytes(out), &n)) {
        throw key_error("OpenSSL: HMAC-SHA256 failed");
    }
    out.resize(n);
    return out;
}

constexpr std::string_view fingerprint_label = "keeper idempotency fingerprint v1";

std::string lower_hex(std::string_view raw) {
    static constexpr char digits[] = "0123456789abcdef";
    std::string out;
    for (const unsigned char c : raw) {
        out += digits[c >> 4];
        out += digits[c & 0x0f];
    }
    return out;
}

bool valid_id(std::string_view id) {
    if (id.empty() || id.size() > 32) return false;
    for (const char c : id) {
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_')) return false;
    }
    return true;
}

}  // namespace

secret_keyring secret_keyring::parse(std::string_view file_text) {
    secret_keyring ring;
    std::istringstream in{std::string{file_text}};
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
        if (line.empty() || line.front() == '#') continue;
        std::istringstream fields{line};
        std::string id, encoded, extra;
        fields >> id >> encoded >> extra;
        const auto raw = unbase64(encoded);
        const auto where = "line " + std::to_string(number) + ": ";
        if (!valid_id(id) || !extra.empty())
            throw key_error(where + "expected '<key id> <base64 key>' (id: 1-32 of A-Z a-z 0-9 - _)");
        if (!raw || raw->size() != key_bytes)
            throw key_error(where + "the key must be 32 bytes in base64 (keeperctl new-key)");
        if (ring.has(id)) throw key_error(where + "key id " + id + " appears twice");
        ring.m_keys.push_back({id, *raw, hmac_sha256(*raw, fingerprint_label)});
    }
    if (ring.m_keys.empty()) throw key_error("no key (keeperctl new-key makes one)");
    return ring;
}

secret_keyring secret_keyring::load(const std::string& path) {
    std::ifstream in{path};
    if (!in) throw key_error("cannot read " + path);
    std::ostringstream text;
    text << in.rdbuf();
    try {
        auto keys = parse(text.str());
        keys.m_path = path;
        return keys;
    } catch (const key_error& e) {
        throw key_error(path + ": " + e.what());
    }
}

std::string secret_keyring::new_key_line(std::string_view id) {
    if (!valid_id(id)) throw key_error("a key id is 1-32 of A-Z a-z 0-9 - _");
    std::string raw(key_bytes, '\0');
    if (RAND_bytes(bytes(raw), static_cast<int>(raw.size())) != 1) throw key_error("OpenSSL: no random bytes");
    return std::string{id} + " " + base64(raw);
}

std::string secret_keyring::new_key_id() {
    unsigned char random[4];
    if (RAND_bytes(random, sizeof random) != 1) throw key_error("OpenSSL: no random bytes");
    const auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    std::tm utc{};
    gmtime_r(&now, &utc);
    char id[32];
    const auto n = std::strftime(id, sizeof id, "k%Y%m%d%H%M%S", &utc);
    std::snprintf(id + n, sizeof id - n, "-%02x%02x%02x%02x", random[0], random[1], random[2], random[3]);
    return id;
}

bool secret_keyring::has(std::string_view id) const {
    for (const auto& k : m_keys) {
        if (k.id == id) return true;
    }
    return false;
}

const secret_keyring::key& secret_keyring::find(std::string_view id) const {
    for (const auto& k : m_keys) {
        if (k.id == id) return k;
    }
    throw key_error("a secret is sealed with key " + std::string{id} + ", which the key file does not hold");
}

std::vector<std::string> secret_keyring::keyed_digests(std::string_view message) const {
    std::vector<std::string> out;
    for (const auto& k : m_keys) {
        out.push_back(lower_hex(hmac_sha256(k.fingerprint_key, message)));
    }
    return out;
}

std::string secret_keyring::seal(std::string_view secret, std::string_view associated) const {
    const auto& k = m_keys.front();
    std::string out(nonce_bytes + secret.size() + tag_bytes, '\0');
    if (RAND_bytes(bytes(out), static_cast<int>(nonce_bytes)) != 1) throw key_error("OpenSSL: no random bytes");
    auto ctx = new_ctx();
    int n = 0;
    auto* body = bytes(out) + nonce_bytes;
    if (EVP_EncryptInit_ex(ctx.get(), EVP_aes_256_gcm(), nullptr, bytes(k.bytes), bytes(out)) != 1 ||
        EVP_EncryptUpdate(ctx.get(), nullptr, &n, bytes(associated), length(associated)) != 1 ||
        EVP_EncryptUpdate(ctx.get(), body, &n, bytes(secret), length(secret)) != 1 ||
        EVP_EncryptFinal_ex(ctx.get(), body + n, &n) != 1 ||
        EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_GET_TAG, static_cast<int>(tag_bytes), body + secret.size()) != 1) {
        throw key_error("OpenSSL: sealing failed");
    }
    return std::string{prefix} + k.id + ":" + base64(out);
}

std::optional<std::string> secret_keyring::open(std::string_view stored, std::string_view associated) const {
    if (!is_sealed(stored)) return std::nullopt;
    const auto rest = stored.substr(prefix.size());
    const auto colon = rest.find(':');
    const auto& k = find(rest.substr(0, colon));
    const auto raw = colon == std::string_view::npos ? std::nullopt : unbase64(rest.substr(colon + 1));
    if (!raw || raw->size() < nonce_bytes + tag_bytes) throw key_error("a sealed secret is damaged");
    const std::string_view all{*raw};
    const auto ciphertext = all.substr(nonce_bytes, all.size() - nonce_bytes - tag_bytes);
    std::string tag{all.substr(all.size() - tag_bytes)};
    std::string out(ciphertext.size(), '\0');
    auto ctx = new_ctx();
    int n = 0;
    if (EVP_DecryptInit_ex(ctx.get(), EVP_aes_256_gcm(), nullptr, bytes(k.bytes), bytes(all)) != 1 ||
        EVP_DecryptUpdate(ctx.get(), nullptr, &n, bytes(associated), length(associated)) != 1 ||
        EVP_DecryptUpdate(ctx.get(), bytes(out), &n, bytes(ciphertext), length(ciphertext)) != 1 ||
        EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_TAG, static_cast<int>(tag_bytes), bytes(tag)) != 1 ||
        EVP_DecryptFinal_ex(ctx.get(), bytes(out) + n, &n) != 1) {
        throw key_error("a sealed secret does not open with key " + k.id +
                        " (wrong key, or the value was altered or moved)");
    }
    return out;
}

bool is_sealed(std::string_view stored) { return stored.substr(0, prefix.size()) == prefix; }

std::string sealed_key_id(std::string_view stored) {
    if (!is_sealed(stored)) return {};
    const auto rest = stored.substr(prefix.size());
    return std::string{rest.substr(0, rest.find(':'))};
}

std::string login_secret_row(std::string_view login) { return "logins:" + std::string{login}; }
std::string application_secret_row(std::string_view app_id) { return "applications:" + std::string{app_id}; }

}  // namespace keeper::db
