// The whole request pipeline (core::handle_request) over an in-memory store that answers.
// Input: one byte choosing method (bits 6-7), an oversized body (bits 4-5) and content type (bits
// 0-3), then path, query and SOAPAction on lines of
// their own, then the body.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "answer_checks.hpp"
#include "answering_store.hpp"
#include "core/pipeline/request_router.hpp"

namespace {

constexpr std::string_view content_types[] = {
    "text/xml; charset=utf-8",
    "application/soap+xml; charset=utf-8",
    "application/x-www-form-urlencoded",
    "",
    "application/soap+xml; charset=utf-8; action=\"http://tempuri.org/Authenticate\"",
    "text/plain",
    "text/xml",
    "multipart/form-data",
    "application/json; charset=utf-8"};

std::string_view next_line(std::string_view& rest) {
    const auto nl = rest.find('\n');
    const auto line = rest.substr(0, nl);
    rest = nl == std::string_view::npos ? std::string_view{} : rest.substr(nl + 1);
    return line;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 1) return 0;
    std::string_view rest{reinterpret_cast<const char*>(data) + 1, size - 1};
    const auto choice = data[0];
    keeper::core::http_request req;
    req.method = (choice & 0x80) ? "GET" : (choice & 0x40) ? "HEAD" : "POST";
    req.content_type = std::string{content_types[(choice & 0x0f) % std::size(content_types)]};
    req.path = std::string{next_line(rest)};
    req.query = std::string{next_line(rest)};
    const auto action = next_line(rest);
    if (!action.empty()) req.soap_action = std::string{action};
    req.host = "fuzz.test";
    req.request_id = "0123456789abcdef0123456789abcdef";
    req.body = std::string{rest};
    req.body_too_large = (choice & 0x30) == 0x30 && req.body.size() > 100;
    static keeper::fuzz::answering_store store;
    static const keeper::core::settings cfg;
    const auto out = keeper::core::handle_request(req, store, cfg);
    keeper::fuzz::check_answer(out.response);
    return 0;
}
