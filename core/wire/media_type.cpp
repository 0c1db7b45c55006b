#include "core/wire/media_type.hpp"

#include "core/api/text_util.hpp"

namespace keeper::core {
namespace {

std::string_view trim(std::string_view s) { return trim_xml_space(s); }

std::string unquote(std::string_view v) {
    if (v.size() < 2 || v.front() != '"' || v.back() != '"') return std::string{v};
    std::string out;
    for (std::size_t i = 1; i + 1 < v.size(); ++i) {
        if (v[i] == '\\' && i + 2 < v.size()) ++i;
        out += v[i];
    }
    return out;
}

}  // namespace

media_type parse_media_type(std::string_view header) {
    media_type out;
    auto semi = header.find(';');
    out.essence = to_lower_ascii(trim(header.substr(0, semi)));
    while (semi != std::string_view::npos) {
        header = header.substr(semi + 1);
        // A quoted value may hold ';': find the end of this parameter outside quotes.
        bool quoted = false;
        semi = std::string_view::npos;
        for (std::size_t i = 0; i < header.size(); ++i) {
            if (header[i] == '"') quoted = !quoted;
            if (header[i] == ';' && !quoted) {
                semi = i;
                break;
            }
        }
        const auto param = header.substr(0, semi);
        const auto eq = param.find('=');
        if (eq == std::string_view::npos) continue;
        out.params[to_lower_ascii(trim(param.substr(0, eq)))] = unquote(trim(param.substr(eq + 1)));
    }
    return out;
}

}  // namespace keeper::core
