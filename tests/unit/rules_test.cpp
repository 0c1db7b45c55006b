// Formats, authHash, error texts (docs/api.md), dates, text helpers.
#include <boost/test/unit_test.hpp>

#include <regex>

#include "tests/support/printers.hpp"

#include "core/domain/auth_hash.hpp"
#include "core/api/date_time.hpp"
#include "core/domain/error_descriptions.hpp"
#include "core/domain/formats.hpp"
#include "core/api/result_code.hpp"
#include "core/api/text_util.hpp"
#include "core/domain/operation_table.hpp"
#include "core/domain/param_rules.hpp"

using namespace keeper::core;

BOOST_AUTO_TEST_SUITE(identifier_formats)

BOOST_AUTO_TEST_CASE(session_id_is_1_to_64_of_the_allowed_characters) {
    BOOST_TEST(formats::is_session_id("{0F8FAD5B-D9CB-469F-A165-70867728950E}"));
    BOOST_TEST(formats::is_session_id("a_b"));
    BOOST_TEST(formats::is_session_id(std::string(64, 'x')));
    BOOST_TEST(!formats::is_session_id(std::string(65, 'x')));
    BOOST_TEST(!formats::is_session_id(""));
    BOOST_TEST(!formats::is_session_id("a b"));
    BOOST_TEST(!formats::is_session_id("a.b"));
    BOOST_TEST(!formats::is_session_id("\xD0\xAF"));
}

BOOST_AUTO_TEST_CASE(login_counts_characters_not_bytes_and_refuses_controls) {
    std::string cyrillic;
    for (int i = 0; i < 64; ++i) cyrillic += "\xD0\xAF";  // 64 characters, 128 bytes
    BOOST_TEST(formats::is_login(cyrillic));
    BOOST_TEST(!formats::is_login(cyrillic + "\xD0\xAF"));
    BOOST_TEST(!formats::is_login(""));
    BOOST_TEST(!formats::is_login("bob\n"));
    BOOST_TEST(!formats::is_login("bob\x7F"));
    BOOST_TEST(!formats::is_login("bob\xC2\x85"));  // U+0085, a C1 control
    BOOST_TEST(!formats::is_login("\xFF"));
    BOOST_TEST(formats::is_login("Bob Smith"));
}

BOOST_AUTO_TEST_CASE(auth_hash_is_32_hex_digits_either_case) {
    BOOST_TEST(formats::is_auth_hash("0123456789abcdefABCDEF0123456789"));
    BOOST_TEST(!formats::is_auth_hash("0123456789abcdefABCDEF012345678"));
    BOOST_TEST(!formats::is_auth_hash("0123456789abcdefABCDEF01234567890"));
    BOOST_TEST(!formats::is_auth_hash("g123456789abcdefABCDEF0123456789"));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(auth_hashes)

BOOST_AUTO_TEST_CASE(md5_matches_the_reference_vectors) {
    BOOST_TEST(md5_hex("") == "d41d8cd98f00b204e9800998ecf8427e");
    BOOST_TEST(md5_hex("abc") == "900150983cd24fb0d6963f7d28e17f72");
}

BOOST_AUTO_TEST_CASE(the_expected_hash_lower_cases_every_part) {
    BOOST_TEST(expected_auth_hash("Demo", "Demo-Secret", "0F8FAD5B-D9CB") == md5_hex("demo:demo-secret:0f8fad5b-d9cb"));
    BOOST_TEST(expected_auth_hash("\xD0\x98\xD0\x92\xD0\x90\xD0\x9D", "S", "x") ==
               md5_hex("\xD0\xB8\xD0\xB2\xD0\xB0\xD0\xBD:s:x"));  // ИВАН -> иван
}

BOOST_AUTO_TEST_CASE(comparison_accepts_either_case_and_refuses_any_difference) {
    const auto h = md5_hex("abc");
    BOOST_TEST(auth_hash_matches(h, "900150983CD24FB0D6963F7D28E17F72"));
    BOOST_TEST(!auth_hash_matches(h, "900150983cd24fb0d6963f7d28e17f73"));
    BOOST_TEST(!auth_hash_matches(h, "000150983cd24fb0d6963f7d28e17f72"));
    BOOST_TEST(!auth_hash_matches(h, "900150983cd24fb0d6963f7d28e17f7"));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(error_texts)

BOOST_AUTO_TEST_CASE(every_code_has_an_english_and_a_russian_text) {
    for (int code = 0; code <= last_result_code; ++code) {
        const auto en = describe_error(code, culture_english);
        const auto ru = describe_error(code, culture_russian);
        BOOST_TEST(!en.empty());
        BOOST_TEST(!ru.empty());
        BOOST_TEST(en != ru);
        BOOST_TEST(en.find("Unknown error code") == std::string::npos);
    }
    BOOST_TEST(describe_error(4, culture_english) == "Authentication failed.");
    BOOST_TEST(describe_error(4, culture_russian) == "Ошибка аутентификации.");
}

BOOST_AUTO_TEST_CASE(other_cultures_get_english_and_unknown_codes_say_so) {
    BOOST_TEST(describe_error(2, 1031) == describe_error(2, culture_english));
    BOOST_TEST(describe_error(2, -5) == describe_error(2, culture_english));
    BOOST_TEST(describe_error(13, culture_english) == "Unknown error code 13");
    BOOST_TEST(describe_error(-1, culture_russian) == "Неизвестный код ошибки -1");
    BOOST_TEST(describe_error(2147483647, 0) == "Unknown error code 2147483647");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(date_times)

BOOST_AUTO_TEST_CASE(fractions_keep_7_digits_and_drop_trailing_zeros) {
    using namespace std::chrono;
    const sys_days day = 2026y / 11 / 22;
    BOOST_TEST(format_date_time(day + 1h + 46min + 25s + 1054us) == "2026-11-22T01:46:25.001054Z");
    BOOST_TEST(format_date_time(day) == "2026-11-22T00:00:00Z");
    BOOST_TEST(format_date_time(day + 500ms) == "2026-11-22T00:00:00.5Z");
    BOOST_TEST(format_date_time(day + 123456789ns) == "2026-11-22T00:00:00.1234567Z");
    BOOST_TEST(format_date_time(day + 23h + 59min + 59s + 100ns) == "2026-11-22T23:59:59.0000001Z");
}

BOOST_AUTO_TEST_CASE(dates_follow_the_calendar_on_either_side_of_1970) {
    using namespace std::chrono;
    BOOST_TEST(format_date_time(sys_days{1970y / 1 / 1}) == "1970-01-01T00:00:00Z");
    BOOST_TEST(format_date_time(sys_days{1969y / 12 / 31} + 999ms) == "1969-12-31T00:00:00.999Z");
    BOOST_TEST(format_date_time(sys_days{2028y / 2 / 29} + 7h + 5min + 9s) == "2028-02-29T07:05:09Z");
    BOOST_TEST(format_date_time(sys_days{2262y / 1 / 1}) == "2262-01-01T00:00:00Z");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(text_helpers)

BOOST_AUTO_TEST_CASE(hex_and_plain_amounts_have_one_rule_each) {
    const unsigned char bytes[] = {0x00, 0x0f, 0xa5, 0xff};
    BOOST_TEST(lower_hex(bytes, sizeof bytes) == "000fa5ff");
    BOOST_TEST(lower_hex(bytes, 0) == "");
    for (const std::string ok : {"0", "15000", "99.5", "99.50"}) BOOST_TEST(is_plain_amount(ok), ok);
    for (const std::string bad : {"", "5.", ".5", "1.234", "1e3", "-1", "+1", " 1", "1,5", "1.2.3"})
        BOOST_TEST(!is_plain_amount(bad), bad);
}

BOOST_AUTO_TEST_CASE(utf8_length_refuses_malformed_sequences) {
    BOOST_TEST(utf8_length("\xD0\xAF\xD0\xAF").value() == 2u);
    BOOST_TEST(!utf8_length("\xC0\xAF").has_value());          // overlong
    BOOST_TEST(!utf8_length("\xED\xA0\x80").has_value());      // surrogate
    BOOST_TEST(!utf8_length("\xD0").has_value());              // truncated
    BOOST_TEST(!utf8_length("\xF4\x90\x80\x80").has_value());  // above U+10FFFF
}

BOOST_AUTO_TEST_CASE(lower_casing_covers_cyrillic) {
    BOOST_TEST(to_lower_utf8("ПРИВЕТ World") == "привет world");
    BOOST_TEST(to_lower_ascii("AbC-{}") == "abc-{}");
}

BOOST_AUTO_TEST_CASE(printable_text_replaces_what_a_terminal_or_xml_would_choke_on) {
    using namespace std::string_literals;
    const auto r = "\xEF\xBF\xBD"s;  // U+FFFD
    BOOST_TEST(printable_text("a\x01"
                              "b\x1B[31mc"s,
                              100) == "a" + r + "b" + r + "[31mc");
    BOOST_TEST(printable_text("nul\0after"s, 100) == "nul" + r + "after");  // not cut at the NUL
    BOOST_TEST(printable_text("bad\xC3(utf8\xFF"s, 100) == "bad" + r + "(utf8" + r);
    BOOST_TEST(printable_text("tab\tcr\rlf\n\x7F\xC2\x85"s, 100) == "tab" + r + "cr" + r + "lf" + r + r + r);
    BOOST_TEST(printable_text("\xEF\xBF\xBE"s, 100) == r);  // U+FFFE: not an XML character
    BOOST_TEST(printable_text("Яблоко", 100) == "Яблоко");
    BOOST_TEST(printable_text("ЯЯЯ", 5) == "ЯЯ…");  // 4 of the 6 bytes: cut between code points, marked
    BOOST_TEST(printable_text(std::string(10000, '\x01'), 30).size() <= 30 + 3);
}

BOOST_AUTO_TEST_CASE(text_escaping_is_xmlwriters_and_attributes_also_escape_quotes) {
    BOOST_TEST(xml_escape_text(R"(<a href="x">&'</a>)") == R"(&lt;a href="x"&gt;&amp;'&lt;/a&gt;)");
    BOOST_TEST(xml_escape_attribute(R"(<"&'>)") == "&lt;&quot;&amp;'&gt;");
}

BOOST_AUTO_TEST_SUITE_END()

// What the OpenAPI document says of each parameter (core/domain/param_rules.hpp) covers every
// parameter, and its samples pass the format checks the operations make.
BOOST_AUTO_TEST_SUITE(param_rules)

std::string unquoted(std::string_view json_string) {
    return std::string{json_string.substr(1, json_string.size() - 2)};
}

BOOST_AUTO_TEST_CASE(every_parameter_of_every_operation_has_a_meaning_and_a_sample) {
    for (const auto& op : operations()) {
        for (const auto& p : op.params) {
            BOOST_TEST_CONTEXT(op.name << "." << p.name) {
                const auto* rule = find_param_rule(p.name);
                BOOST_TEST_REQUIRE(rule != nullptr);
                BOOST_TEST(!rule->description.empty());
                BOOST_TEST(!rule->example.empty());
                const bool text = p.type == param_type::string || p.type == param_type::provider;
                BOOST_TEST(text == rule->example.starts_with('"'));  // a string's sample is a JSON string
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(the_samples_pass_the_formats_and_match_the_patterns) {
    const auto sample = [](std::string_view name) { return unquoted(find_param_rule(name)->example); };
    BOOST_TEST(formats::is_session_id(sample("sessionId")));
    BOOST_TEST(formats::is_login(sample("login")));
    BOOST_TEST(formats::is_auth_hash(sample("authHash")));
    BOOST_TEST(formats::is_wmid(sample("wmid")));
    BOOST_TEST(formats::normalize_purse(sample("purseDest")).has_value());
    BOOST_TEST(formats::is_app_id(sample("appId")));
    BOOST_TEST(formats::is_user_id(sample("userId")));
    BOOST_TEST(formats::is_push_user_id(sample("pushServiceUserId")));
    BOOST_TEST(formats::is_code(sample("code")));
    BOOST_TEST(formats::is_code(sample("protectionCode")));
    BOOST_TEST(formats::normalize_profile_name(sample("name")).has_value());
    BOOST_TEST(formats::is_locale(std::stoi(std::string{find_param_rule("locale")->example})));
    for (const auto& op : operations()) {
        for (const auto& p : op.params) {
            const auto* rule = find_param_rule(p.name);
            if (rule->pattern.empty()) continue;
            BOOST_TEST_CONTEXT(p.name) {
                BOOST_TEST(std::regex_match(unquoted(rule->example), std::regex{std::string{rule->pattern}}));
                BOOST_TEST(!std::regex_match(std::string(300, '\x01'), std::regex{std::string{rule->pattern}}));
            }
        }
    }
}

BOOST_AUTO_TEST_SUITE_END()
