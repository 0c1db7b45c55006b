#include "core/domain/call_fingerprint.hpp"

#include <openssl/evp.h>

#include <array>
#include <charconv>
#include <stdexcept>

#include "core/api/text_util.hpp"

namespace keeper::core {
namespace {

// A double as the shortest text that reads back to the same value: 10 and 10.0 are one amount.
std::string canonical(double v) {
    std::array<char, 32> buf{};
    const auto [end, ec] = std::to_chars(buf.data(), buf.data() + buf.size(), v);
    return ec == std::errc{} ? std::string(buf.data(), end) : std::string{"nan"};
}

std::string canonical(const param_value& v) {
    return std::visit(
        [](const auto& x) -> std::string {
            using T = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<T, std::string>) return x;
            else if constexpr (std::is_same_v<T, bool>) return x ? "true" : "false";
            else if constexpr (std::is_same_v<T, double>) return canonical(x);
            else if constexpr (std::is_same_v<T, provider>) return std::to_string(static_cast<int>(x));
            else return std::to_string(x);
        },
        v);
}

void add_field(std::string& input, std::string_view field) {
    input += std::to_string(field.size());
    input += ':';
    input += field;
}

}  // namespace

std::string call_fingerprint(const decoded_call& call) {
    std::string input;
    add_field(input, group_name(call.op->group));
    add_field(input, call.op->name);
    for (const auto& arg : call.args) {
        add_field(input, std::to_string(arg.index()));
        add_field(input, canonical(arg));
    }
    std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
    unsigned int length = 0;
    if (EVP_Digest(input.data(), input.size(), digest.data(), &length, EVP_sha256(), nullptr) != 1) {
        throw std::runtime_error("SHA-256 digest failed");
    }
    return lower_hex(digest.data(), length);
}

}  // namespace keeper::core
