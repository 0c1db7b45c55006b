// FastCGI's decoder (fcgi/protocol.hpp) on whatever a peer of the workers' sockets sends, cut where
// the input's first byte says: it never reads past what came, keeps no more body than its limit,
// calls a connection reusable only when nothing of it is left, and an answer's records carry its
// bytes whole.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "fcgi/protocol.hpp"

namespace {

using keeper::fcgi::protocol::request_decoder;
using progress = request_decoder::progress;

void require(bool ok) {
    if (!ok) std::abort();
}

// The STDOUT bytes of encoded records, checking their framing on the way.
std::string stdout_of(std::string_view records, std::uint16_t id) {
    std::string text;
    bool ended = false;
    while (!records.empty()) {
        require(!ended && records.size() >= 8 && records[0] == 1);
        require((static_cast<unsigned char>(records[2]) << 8 | static_cast<unsigned char>(records[3])) == id);
        const std::size_t n = static_cast<unsigned char>(records[4]) << 8 | static_cast<unsigned char>(records[5]);
        require(records.size() >= 8 + n);
        if (records[1] == 6) text.append(records.substr(8, n));
        ended = records[1] == 3;
        records.remove_prefix(8 + n);
    }
    require(ended);
    return text;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    const std::size_t chunk = data[0] % 64 + 1;
    std::string_view bytes{reinterpret_cast<const char*>(data) + 1, size - 1};
    constexpr std::size_t limit = 4096;
    request_decoder d{limit};
    progress p = progress::reading;
    while (!bytes.empty() && (p == progress::reading || p == progress::params_read)) {
        const auto n = std::min(chunk, bytes.size());
        p = d.feed(bytes.substr(0, n));
        bytes.remove_prefix(n);
        while (p == progress::params_read) p = d.feed({});
        (void)d.take_replies();
    }
    require(p != progress::failed || !d.error().empty());
    require(!d.reusable() || (p == progress::complete && d.keep_connection() && !d.body_too_large()));
    for (const auto& [name, value] : d.params()) require(name.size() + value.size() <= size);
    const auto body = d.take_body();
    require(body.size() <= limit);
    require(stdout_of(keeper::fcgi::protocol::encode_response(d.request_id(), "head", body), d.request_id()) ==
            "head" + body);
    return 0;
}
