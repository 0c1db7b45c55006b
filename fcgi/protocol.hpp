#pragma once
// FastCGI 1.0 as a responder speaks it (the protocol's specification, as libfcgi-dev's fastcgi.h
// defines its records): a request's records decoded from the bytes of its connection, and an
// answer's records encoded. No socket here: fcgi/fcgi_exchange.cpp reads and writes, and nothing
// else in keeper knows how a request is framed (docs/design.md, "Speaking FastCGI").
//
// One request at a time on a connection, as nginx sends them: a second request begun while one
// is read is refused (FCGI_CANT_MPX_CONN), as is any role but responder (FCGI_UNKNOWN_ROLE);
// management records are answered (FCGI_GET_VALUES, FCGI_UNKNOWN_TYPE); records of a request no
// longer read are ignored, as the specification says.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace keeper::fcgi::protocol {

struct param {
    std::string_view name;
    std::string_view value;
};

// Parameters beyond this are a peer's mistake, not a request: nginx sends a few KiB.
constexpr std::size_t params_limit = 1 << 20;

class request_decoder {
public:
    enum class progress {
        reading,      // more bytes are needed
        params_read,  // params() is whole; feed again (with no bytes) to read on
        complete,     // the body is whole too, or longer than the limit (body_too_large)
        failed,       // not a FastCGI request; error() says why, and the connection ends
    };

    explicit request_decoder(std::size_t body_limit) : m_body_limit(body_limit) {}

    // Appends bytes to what came before and decodes the whole records among them, stopping where
    // the parameters become whole (once) and where the request is complete.
    progress feed(std::string_view bytes);

    bool started() const { return m_started; }  // some bytes came
    std::uint16_t request_id() const { return m_id; }
    bool keep_connection() const { return m_keep; }
    const std::vector<param>& params() const { return m_params; }
    std::string take_body() { return std::move(m_body); }
    // Past body_limit: the rest is not kept, and the request completes unread.
    bool body_too_large() const { return m_body_too_large; }
    // Nothing of the connection is left unread: it can carry another request.
    bool reusable() const;
    const std::string& error() const { return m_error; }
    // Records owed to the peer that are no answer to the request (management records, refused
    // requests), to be written as they are.
    std::string take_replies() { return std::exchange(m_replies, {}); }

private:
    enum class stage { begin, params, body, done, failed };
    progress step(std::string_view buffer, std::size_t& at);
    bool record(std::uint8_t type, std::uint16_t id, std::string_view content);
    bool begin_request(std::uint16_t id, std::string_view content);
    bool params_record(std::string_view content);
    bool stdin_record(std::string_view content);
    void management(std::uint8_t type, std::string_view content);
    bool fail(std::string why);

    std::size_t m_body_limit;
    stage m_stage = stage::begin;
    bool m_started = false;
    bool m_params_announced = false;
    std::string m_pending;  // bytes of records not yet decoded (a record cut short, or after the news)
    std::size_t m_at = 0;   // where in m_pending the next record starts
    std::uint16_t m_id = 0;
    bool m_keep = false;
    std::string m_param_bytes;  // the pairs as they came; m_params views it
    std::vector<param> m_params;
    std::string m_body;
    bool m_body_too_large = false;
    std::string m_replies;
    std::string m_error;
};

// The records of one answer: its bytes (head, then body) as FCGI_STDOUT records, the stream's
// end, and FCGI_END_REQUEST, in one string for one write.
std::string encode_response(std::uint16_t request_id, std::string_view head, std::string_view body);

}  // namespace keeper::fcgi::protocol
