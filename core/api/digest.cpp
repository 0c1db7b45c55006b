#include "core/api/digest.hpp"

#include <openssl/evp.h>

#include <array>
#include <memory>
#include <stdexcept>

#include "core/api/text_util.hpp"

namespace keeper::core {
namespace {

struct md_free {
    void operator()(EVP_MD* md) const { EVP_MD_free(md); }
};
using fetched_md = std::unique_ptr<EVP_MD, md_free>;

// Each algorithm fetched from OpenSSL's default provider once per process (an EVP_MD is shared
// between threads). EVP_sha256() names an algorithm that every EVP_Digest call would fetch again:
// a lookup in the provider's store under its lock, which costs more than digesting a session id
// (bench/history.md, "The session's hash in the worker").
fetched_md fetched(const char* name) {
    fetched_md md{EVP_MD_fetch(nullptr, name, nullptr)};
    if (!md) throw std::runtime_error("digest unavailable");
    return md;
}

const EVP_MD* sha256() {
    static const fetched_md md = fetched("SHA256");
    return md.get();
}

const EVP_MD* md5() {
    static const fetched_md md = fetched("MD5");
    return md.get();
}

struct ctx_free {
    void operator()(EVP_MD_CTX* ctx) const { EVP_MD_CTX_free(ctx); }
};

// One digest context per thread, initialised again for each digest: EVP_Digest allocates a
// context, and the algorithm's state within it, and frees both, on every call; the digest of a
// session id on every call was twice as long so (bench/history.md, "The worker's
// digests and hex checks").
EVP_MD_CTX* thread_context() {
    thread_local const std::unique_ptr<EVP_MD_CTX, ctx_free> ctx{EVP_MD_CTX_new()};
    if (!ctx) throw std::runtime_error("digest unavailable");
    return ctx.get();
}

std::string hex_digest(std::string_view bytes, const EVP_MD* kind) {
    std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
    unsigned int length = 0;
    EVP_MD_CTX* ctx = thread_context();
    if (EVP_DigestInit_ex2(ctx, kind, nullptr) != 1 || EVP_DigestUpdate(ctx, bytes.data(), bytes.size()) != 1 ||
        EVP_DigestFinal_ex(ctx, digest.data(), &length) != 1) {
        throw std::runtime_error("digest failed");
    }
    return lower_hex(digest.data(), length);
}

}  // namespace

std::string sha256_hex(std::string_view bytes) { return hex_digest(bytes, sha256()); }
std::string md5_hex(std::string_view bytes) { return hex_digest(bytes, md5()); }

}  // namespace keeper::core
