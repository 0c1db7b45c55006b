#pragma once
// Small text helpers shared by decoders, writers and format rules.
#include <optional>
#include <string>
#include <string_view>

namespace keeper::core {

// Bytes as lower-case hex, two digits a byte (digests, salts, checksums).
std::string lower_hex(const unsigned char* data, std::size_t size);
// Whether every character is one of 0-9 a-f (ids written so: trace ids, request ids).
bool is_lower_hex(std::string_view s);

// An amount written plainly: digits, then optionally '.' and 1 or 2 more digits ("15000",
// "99.5", "99.50"; not "5.", ".5", "1e3", "-1"). Settings and provisioning take amounts so.
bool is_plain_amount(std::string_view s);

// The text up to its first line break: libpq's messages, in a one-line log or answer.
std::string_view first_line(std::string_view text);

// Strips XML white space (space, tab, CR, LF) from both ends.
std::string_view trim_xml_space(std::string_view s);
bool iequals_ascii(std::string_view a, std::string_view b);
std::string to_lower_ascii(std::string_view s);

// Element text as .NET's XmlWriter writes it: &, < and > escaped, quotes left alone.
std::string xml_escape_text(std::string_view s);
// Attribute values (double-quoted) and HTML: also escapes '"'.
std::string xml_escape_attribute(std::string_view s);

// UTF-8: number of code points, or nullopt when the bytes are not well-formed UTF-8.
std::optional<std::size_t> utf8_length(std::string_view s);
// True when any code point is a control character (C0, DEL or C1). Expects valid UTF-8.
bool has_control_characters(std::string_view s);
// Unicode simple lower-case mapping (C.UTF-8 locale tables), for logins and app ids that may
// be Cyrillic. Expects valid UTF-8.
std::string to_lower_utf8(std::string_view s);
// Strips Unicode white space (C.UTF-8 iswspace, plus U+00A0 and U+FEFF) from both ends.
std::string trim_unicode_space(std::string_view s);
// Text safe to show anywhere (an XML element, a text/plain line, a terminal): every byte that is
// not well-formed UTF-8, every control character (C0 including NUL and tab, DEL, C1) and U+FFFE /
// U+FFFF becomes U+FFFD; at most max_bytes, cut between code points and marked with "…".
std::string printable_text(std::string_view s, std::size_t max_bytes);
// A client's value quoted in a message: printable_text, at most max_bytes.
std::string shorten_for_message(std::string_view s, std::size_t max_bytes = 64);

}  // namespace keeper::core
