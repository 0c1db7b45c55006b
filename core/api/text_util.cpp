#include "core/api/text_util.hpp"

#include <locale.h>
#include <wctype.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace keeper::core {

// A loop of two ranges: find_first_not_of searches its 16-character set for each character, six
// times as many instructions, and every request's trace header is checked twice.
bool is_lower_hex(std::string_view s) {
    return std::all_of(s.begin(), s.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

std::string lower_hex(const unsigned char* data, std::size_t size) {
    static constexpr char digits[] = "0123456789abcdef";
    std::string out(size * 2, '\0');  // written in place: appending checks the capacity per digit
    for (std::size_t i = 0; i < size; ++i) {
        out[2 * i] = digits[data[i] >> 4];
        out[2 * i + 1] = digits[data[i] & 0x0F];
    }
    return out;
}

bool is_plain_amount(std::string_view s) {
    const auto dot = s.find('.');
    const auto whole = s.substr(0, dot);
    const auto frac = dot == std::string_view::npos ? std::string_view{} : s.substr(dot + 1);
    const auto all_digits = [](std::string_view d) {
        return d.find_first_not_of("0123456789") == std::string_view::npos;
    };
    return !whole.empty() && all_digits(whole) && all_digits(frac) && frac.size() <= 2 &&
           (dot == std::string_view::npos || !frac.empty());
}
namespace {

bool is_xml_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

char lower_ascii(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

// Decodes one code point at s[i], advancing i; nullopt on malformed input (overlong forms,
// surrogates and values above U+10FFFF included).
std::optional<char32_t> next_code_point(std::string_view s, std::size_t& i) {
    const auto lead = static_cast<unsigned char>(s[i]);
    std::size_t extra = 0;
    char32_t cp = 0;
    if (lead < 0x80) {
        ++i;
        return lead;
    }
    if ((lead & 0xE0) == 0xC0) {
        extra = 1;
        cp = lead & 0x1F;
    } else if ((lead & 0xF0) == 0xE0) {
        extra = 2;
        cp = lead & 0x0F;
    } else if ((lead & 0xF8) == 0xF0) {
        extra = 3;
        cp = lead & 0x07;
    } else return std::nullopt;
    if (i + extra >= s.size()) return std::nullopt;  // truncated sequence
    for (std::size_t k = 1; k <= extra; ++k) {
        const auto b = static_cast<unsigned char>(s[i + k]);
        if ((b & 0xC0) != 0x80) return std::nullopt;
        cp = (cp << 6) | (b & 0x3F);
    }
    static constexpr char32_t min_for_length[] = {0, 0x80, 0x800, 0x10000};
    if (cp < min_for_length[extra] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
        return std::nullopt;
    }
    i += extra + 1;
    return cp;
}

void append_utf8(std::string& out, char32_t cp) {
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

std::vector<char32_t> code_points(std::string_view s) {
    std::vector<char32_t> out;
    for (std::size_t i = 0; i < s.size();) {
        auto cp = next_code_point(s, i);
        if (!cp) throw std::invalid_argument("malformed UTF-8");
        out.push_back(*cp);
    }
    return out;
}

// Resolved once: the C.UTF-8 locale has Unicode case tables whatever the process locale is.
locale_t utf8_ctype() {
    static const locale_t loc = newlocale(LC_CTYPE_MASK, "C.UTF-8", locale_t{});
    return loc;
}

}  // namespace

std::string_view first_line(std::string_view text) { return text.substr(0, text.find('\n')); }

std::string_view trim_xml_space(std::string_view s) {
    while (!s.empty() && is_xml_space(s.front())) s.remove_prefix(1);
    while (!s.empty() && is_xml_space(s.back())) s.remove_suffix(1);
    return s;
}

bool iequals_ascii(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (lower_ascii(a[i]) != lower_ascii(b[i])) return false;
    }
    return true;
}

std::string to_lower_ascii(std::string_view s) {
    std::string out{s};
    for (auto& c : out) c = lower_ascii(c);
    return out;
}

std::string xml_escape_text(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (char c : s) {
        switch (c) {
            case '&':
                out += "&amp;";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            default:
                out += c;
        }
    }
    return out;
}

std::string xml_escape_attribute(std::string_view s) {
    std::string out;
    for (char c : xml_escape_text(s)) {
        if (c == '"') out += "&quot;";
        else out += c;
    }
    return out;
}

std::optional<std::size_t> utf8_length(std::string_view s) {
    std::size_t count = 0;
    for (std::size_t i = 0; i < s.size(); ++count) {
        if (!next_code_point(s, i)) return std::nullopt;
    }
    return count;
}

bool has_control_characters(std::string_view s) {
    for (char32_t cp : code_points(s)) {
        if (cp < 0x20 || (cp >= 0x7F && cp <= 0x9F)) return true;
    }
    return false;
}

std::string to_lower_utf8(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    const locale_t loc = utf8_ctype();
    for (char32_t cp : code_points(s)) {
        const auto lowered = loc ? towlower_l(static_cast<wint_t>(cp), loc) : static_cast<wint_t>(cp);
        append_utf8(out, static_cast<char32_t>(lowered));
    }
    return out;
}

std::string trim_unicode_space(std::string_view s) {
    const auto cps = code_points(s);
    const locale_t loc = utf8_ctype();
    const auto is_space = [&](char32_t cp) {
        return cp == 0xA0 || cp == 0xFEFF || (loc ? iswspace_l(static_cast<wint_t>(cp), loc) != 0 : cp == ' ');
    };
    std::size_t first = 0, last = cps.size();
    while (first < last && is_space(cps[first])) ++first;
    while (last > first && is_space(cps[last - 1])) --last;
    std::string out;
    for (std::size_t i = first; i < last; ++i) append_utf8(out, cps[i]);
    return out;
}

std::string printable_text(std::string_view s, std::size_t max_bytes) {
    static constexpr char32_t replacement = 0xFFFD;
    static constexpr std::string_view ellipsis = "…";
    std::string out;
    out.reserve(std::min(s.size(), max_bytes));
    for (std::size_t i = 0; i < s.size();) {
        const std::size_t start = i;
        auto cp = next_code_point(s, i);
        if (!cp) i = start + 1;  // one bad byte, one replacement
        const bool shown = cp && *cp >= 0x20 && !(*cp >= 0x7F && *cp <= 0x9F) && *cp != 0xFFFE && *cp != 0xFFFF;
        std::string piece;
        append_utf8(piece, shown ? *cp : replacement);
        if (out.size() + piece.size() > max_bytes) return out + std::string{ellipsis};
        out += piece;
    }
    return out;
}

std::string shorten_for_message(std::string_view s, std::size_t max_bytes) { return printable_text(s, max_bytes); }

}  // namespace keeper::core
