// FastCGI's records as keeper decodes and encodes them (fcgi/protocol.hpp), built here byte by
// byte from the specification, as nginx sends them and as a peer that is not nginx might.
#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fcgi/protocol.hpp"

using keeper::fcgi::protocol::encode_response;
using keeper::fcgi::protocol::request_decoder;
using progress = request_decoder::progress;

namespace {

constexpr std::uint8_t begin_request = 1, abort_request = 2, end_request = 3, params = 4, stdin_ = 5, stdout_ = 6,
                       get_values = 9, get_values_result = 10, unknown_type = 11;

std::string record(std::uint8_t type, std::uint16_t id, std::string_view content, std::uint8_t padding = 0,
                   std::uint8_t version = 1) {
    std::string r{static_cast<char>(version),
                  static_cast<char>(type),
                  static_cast<char>(id >> 8),
                  static_cast<char>(id & 0xff),
                  static_cast<char>(content.size() >> 8),
                  static_cast<char>(content.size() & 0xff),
                  static_cast<char>(padding),
                  0};
    return r.append(content).append(padding, '\0');
}

std::string begin(std::uint16_t id, bool keep, std::uint16_t role = 1) {
    const std::string body{
        static_cast<char>(role >> 8), static_cast<char>(role & 0xff), static_cast<char>(keep ? 1 : 0), 0, 0, 0, 0, 0};
    return record(begin_request, id, body);
}

std::string length(std::size_t n) {
    if (n < 128) return std::string(1, static_cast<char>(n));
    return {static_cast<char>(0x80 | (n >> 24)), static_cast<char>((n >> 16) & 0xff),
            static_cast<char>((n >> 8) & 0xff), static_cast<char>(n & 0xff)};
}

std::string pair(std::string_view name, std::string_view value) {
    return length(name.size()) + length(value.size()) + std::string{name} + std::string{value};
}

const std::string long_value(300, 'v');

// What nginx sends for a POST with a body: the pairs split over two records, the body over two.
std::string nginx_request(std::uint16_t id, bool keep, std::string_view body) {
    const auto pairs = pair("REQUEST_METHOD", "POST") + pair("HTTP_SOAPACTION", long_value) + pair("EMPTY", "");
    return begin(id, keep) + record(params, id, pairs.substr(0, 10)) + record(params, id, pairs.substr(10), 3) +
           record(params, id, "") + record(stdin_, id, body.substr(0, 5)) + record(stdin_, id, body.substr(5), 7) +
           record(stdin_, id, "");
}

struct stdout_records {
    std::string text;
    std::size_t records = 0;
    std::size_t largest = 0;
    bool ended = false;  // an empty STDOUT, then END_REQUEST with REQUEST_COMPLETE
    std::uint16_t id = 0;
};

stdout_records read_answer(std::string_view bytes) {
    stdout_records out;
    while (bytes.size() >= 8) {
        const auto type = static_cast<std::uint8_t>(bytes[1]);
        out.id = static_cast<std::uint16_t>(static_cast<unsigned char>(bytes[2]) << 8 |
                                            static_cast<unsigned char>(bytes[3]));
        const std::size_t n = static_cast<unsigned char>(bytes[4]) << 8 | static_cast<unsigned char>(bytes[5]);
        const auto content = bytes.substr(8, n);
        if (type == stdout_ && n > 0) {
            out.text.append(content);
            ++out.records;
            out.largest = std::max(out.largest, n);
        } else if (type == end_request) {
            out.ended = n == 8 && content[4] == 0 && bytes.size() == 8 + n;
        }
        bytes.remove_prefix(8 + n + static_cast<unsigned char>(bytes[6]));
    }
    return out;
}

request_decoder decoded(std::string_view bytes, std::size_t limit = 1000) {
    request_decoder d{limit};
    auto p = d.feed(bytes);
    if (p == progress::params_read) p = d.feed({});
    BOOST_TEST((p == progress::complete || p == progress::failed));
    return d;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(fcgi_protocol)

BOOST_AUTO_TEST_CASE(a_request_as_nginx_sends_it_is_read_whole) {
    request_decoder d{1000};
    BOOST_TEST((d.feed(nginx_request(7, true, "0123456789abc")) == progress::params_read));
    BOOST_TEST(d.params().size() == 3u);
    BOOST_TEST(d.params()[0].name == "REQUEST_METHOD");
    BOOST_TEST(d.params()[0].value == "POST");
    BOOST_TEST(d.params()[1].value == long_value);
    BOOST_TEST(d.params()[2].value.empty());
    BOOST_TEST((d.feed({}) == progress::complete));
    BOOST_TEST(d.request_id() == 7);
    BOOST_TEST(d.keep_connection());
    BOOST_TEST(d.reusable());
    BOOST_TEST(d.take_body() == "0123456789abc");
    BOOST_TEST(d.take_replies().empty());
}

BOOST_AUTO_TEST_CASE(bytes_that_come_one_at_a_time_read_the_same) {
    const auto bytes = nginx_request(1, true, "0123456789abc");
    request_decoder d{1000};
    int params_seen = 0;
    for (std::size_t i = 0; i < bytes.size(); ++i) {
        auto p = d.feed(bytes.substr(i, 1));
        if (p == progress::params_read) {
            ++params_seen;
            p = d.feed({});
        }
        BOOST_TEST((p == (i + 1 == bytes.size() ? progress::complete : progress::reading)), "at byte " << i);
    }
    BOOST_TEST(params_seen == 1);
    BOOST_TEST(d.params()[1].value == long_value);
    BOOST_TEST(d.take_body() == "0123456789abc");
    BOOST_TEST(d.reusable());
}

BOOST_AUTO_TEST_CASE(a_connection_nginx_does_not_keep_or_with_bytes_left_is_not_reused) {
    BOOST_TEST(!decoded(nginx_request(1, false, "0123456789")).reusable());
    auto d = decoded(nginx_request(1, true, "0123456789") + begin(2, true));
    BOOST_TEST(d.take_body() == "0123456789");
    BOOST_TEST(!d.reusable());
    request_decoder later{1000};
    later.feed(nginx_request(1, true, "0123456789"));
    BOOST_TEST((later.feed({}) == progress::complete));
    BOOST_TEST((later.feed("x") == progress::complete));
    BOOST_TEST(!later.reusable());
}

BOOST_AUTO_TEST_CASE(a_body_past_the_limit_completes_unkept_and_unread) {
    auto d = decoded(nginx_request(1, true, "0123456789abc"), 10);
    BOOST_TEST(d.body_too_large());
    BOOST_TEST(d.take_body().empty());
    BOOST_TEST(!d.reusable());
    auto exact = decoded(nginx_request(1, true, "0123456789"), 10);
    BOOST_TEST(!exact.body_too_large());
    BOOST_TEST(exact.take_body() == "0123456789");
}

BOOST_AUTO_TEST_CASE(management_records_are_answered_and_change_nothing) {
    request_decoder d{1000};
    const auto asked = pair("FCGI_MPXS_CONNS", "") + pair("FCGI_MAX_CONNS", "");
    BOOST_TEST((d.feed(record(get_values, 0, asked) + record(42, 0, "")) == progress::reading));
    const auto replies = d.take_replies();
    BOOST_TEST(replies == record(get_values_result, 0, pair("FCGI_MPXS_CONNS", "0")) +
                              record(unknown_type, 0, std::string{static_cast<char>(42), 0, 0, 0, 0, 0, 0, 0}));
    d.feed(nginx_request(3, true, "0123456789"));
    BOOST_TEST((d.feed({}) == progress::complete));
    BOOST_TEST(d.reusable());
}

BOOST_AUTO_TEST_CASE(a_second_request_or_another_role_is_refused_and_the_first_read_on) {
    const std::string refused_mpx = record(end_request, 9, std::string{0, 0, 0, 0, 1, 0, 0, 0});
    const std::string refused_role = record(end_request, 5, std::string{0, 0, 0, 0, 3, 0, 0, 0});
    auto bytes = nginx_request(4, true, "0123456789");
    bytes.insert(begin(4, true).size(), begin(9, true) + record(params, 9, pair("X", "y")));  // interleaved
    auto d = decoded(begin(5, true, 2) + bytes);
    BOOST_TEST(d.take_replies() == refused_role + refused_mpx);
    BOOST_TEST(d.request_id() == 4);
    BOOST_TEST(d.params().size() == 3u);
    BOOST_TEST(d.take_body() == "0123456789");
}

BOOST_AUTO_TEST_CASE(what_is_no_fastcgi_request_fails_with_a_reason) {
    const std::vector<std::pair<std::string, std::string>> cases{
        {record(begin_request, 1, "short", 0, 2), "not a FastCGI 1 record"},
        {begin(1, true) + record(abort_request, 1, ""), "the web server aborted the request"},
        {begin(1, true) +
             record(params, 1,
                    "\x05\x01"
                    "ab") +
             record(params, 1, ""),
         "a parameter cut short"},
        {begin(1, true) + record(stdin_, 1, "x"), "a body before the parameters' end"},
        {begin(1, true) + begin(1, true), "a request begun twice"},
        {record(begin_request, 1, "short"), "a begin-request record of the wrong length"},
        {begin(1, true) + record(params, 1, "") + record(params, 1, "x"), "parameters after their end"},
        {begin(1, true) + record(stdout_, 1, "x"), "a record a web server does not send (type 6)"},
    };
    for (const auto& [bytes, why] : cases) {
        const auto d = decoded(bytes);
        BOOST_TEST(d.error() == why);
        BOOST_TEST(!d.reusable());
    }
    request_decoder big{1000};
    const std::string chunk(60000, 'p');
    progress p = big.feed(begin(1, true));
    for (int i = 0; i < 18 && p == progress::reading; ++i) p = big.feed(record(params, 1, chunk));
    BOOST_TEST((p == progress::failed));
    BOOST_TEST(big.error() == "parameters over 1 MiB");
}

BOOST_AUTO_TEST_CASE(records_of_a_request_not_read_are_ignored) {
    auto d = decoded(record(params, 8, pair("A", "b")) + record(stdin_, 8, "x") + nginx_request(2, true, "0123456789"));
    BOOST_TEST(d.error().empty());
    BOOST_TEST(d.params().size() == 3u);
    BOOST_TEST(d.take_body() == "0123456789");
}

BOOST_AUTO_TEST_CASE(an_answer_is_stdout_records_the_stream_end_and_the_request_end) {
    const auto small = read_answer(encode_response(300, "Status: 200 OK\r\n\r\n", "body"));
    BOOST_TEST(small.text == "Status: 200 OK\r\n\r\nbody");
    BOOST_TEST(small.records == 1u);
    BOOST_TEST(small.ended);
    BOOST_TEST(small.id == 300);
    const std::string body(200000, 'b');
    const auto large = read_answer(encode_response(1, "head\r\n\r\n", body));
    BOOST_TEST(large.text == "head\r\n\r\n" + body);
    BOOST_TEST(large.records == 4u);
    BOOST_TEST(large.largest == 65535u);
    BOOST_TEST(large.ended);
    const auto empty = read_answer(encode_response(1, "", ""));
    BOOST_TEST(empty.records == 0u);
    BOOST_TEST(empty.ended);
}

BOOST_AUTO_TEST_SUITE_END()
