#include "core/wire/form_reader.hpp"

#include "core/api/fault.hpp"

namespace keeper::core {
namespace {

int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

std::string percent_decode(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '+') {
            out += ' ';
        } else if (s[i] == '%') {
            const int hi = i + 2 < s.size() ? hex_value(s[i + 1]) : -1;
            const int lo = i + 2 < s.size() ? hex_value(s[i + 2]) : -1;
            if (hi < 0 || lo < 0) throw fault(fault_kind::client, "The form data has a broken percent escape.");
            out += static_cast<char>(hi * 16 + lo);
            i += 2;
        } else {
            out += s[i];
        }
    }
    return out;
}

}  // namespace

const std::string& one_form_value(const std::multimap<std::string, std::string>& form, const std::string& name) {
    const auto [first, last] = form.equal_range(name);
    if (first == last) throw fault(fault_kind::client, "Missing parameter: " + name + ".");
    if (std::next(first) != last) throw fault(fault_kind::client, "Parameter '" + name + "' is given more than once.");
    return first->second;
}

std::multimap<std::string, std::string> read_form(std::string_view encoded) {
    std::multimap<std::string, std::string> out;
    while (!encoded.empty()) {
        const auto amp = encoded.find('&');
        const auto pair = encoded.substr(0, amp);
        encoded = amp == std::string_view::npos ? std::string_view{} : encoded.substr(amp + 1);
        if (pair.empty()) continue;
        const auto eq = pair.find('=');
        const auto name = pair.substr(0, eq);
        const auto value = eq == std::string_view::npos ? std::string_view{} : pair.substr(eq + 1);
        out.emplace(percent_decode(name), percent_decode(value));
    }
    return out;
}

}  // namespace keeper::core
