#pragma once
// Every HTTP status keeper answers with, and its reason phrase (RFC 9110, section 15). The FastCGI
// front writes the phrase into the Status header; a unit test (the response_writer suite) sends every
// fault over every transport and checks that each status it gets is in this table.
#include <array>
#include <optional>
#include <string_view>

namespace keeper::core {

struct http_status {
    int code;
    std::string_view reason;
};

inline constexpr std::array<http_status, 11> http_statuses{{
    {200, "OK"},
    {400, "Bad Request"},
    {403, "Forbidden"},
    {404, "Not Found"},
    {405, "Method Not Allowed"},
    {409, "Conflict"},
    {413, "Content Too Large"},
    {415, "Unsupported Media Type"},
    {422, "Unprocessable Content"},
    {500, "Internal Server Error"},
    {503, "Service Unavailable"},
}};

// The status's reason phrase; nullopt for one keeper never sends.
constexpr std::optional<std::string_view> reason_phrase(int code) {
    for (const auto& s : http_statuses) {
        if (s.code == code) return s.reason;
    }
    return std::nullopt;
}

}  // namespace keeper::core
