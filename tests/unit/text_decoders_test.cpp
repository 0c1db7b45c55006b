#include <boost/test/unit_test.hpp>

#include "tests/support/printers.hpp"
#include <cmath>

#include "core/wire/text_decoders.hpp"

using namespace keeper::core;

namespace {

template <typename T>
T xsd(param_type t, std::string_view text) {
    const auto v = decode_xsd(t, text);
    BOOST_TEST_REQUIRE(v.has_value(), "'" << text << "' should decode");
    return std::get<T>(*v);
}

template <typename T>
T form(param_type t, std::string_view text) {
    const auto v = decode_form(t, text);
    BOOST_TEST_REQUIRE(v.has_value(), "'" << text << "' should decode");
    return std::get<T>(*v);
}

bool xsd_fails(param_type t, std::string_view text) { return !decode_xsd(t, text).has_value(); }
bool form_fails(param_type t, std::string_view text) { return !decode_form(t, text).has_value(); }

}  // namespace

BOOST_AUTO_TEST_SUITE(text_decoders)

BOOST_AUTO_TEST_CASE(xsd_boolean_takes_exactly_true_false_1_0) {
    BOOST_TEST(xsd<bool>(param_type::boolean, "true"));
    BOOST_TEST(xsd<bool>(param_type::boolean, "1"));
    BOOST_TEST(!xsd<bool>(param_type::boolean, "false"));
    BOOST_TEST(!xsd<bool>(param_type::boolean, "0"));
    BOOST_TEST(xsd<bool>(param_type::boolean, " \n true\t"));
    BOOST_TEST(xsd_fails(param_type::boolean, "True"));
    BOOST_TEST(xsd_fails(param_type::boolean, "TRUE"));
    BOOST_TEST(xsd_fails(param_type::boolean, "yes"));
    BOOST_TEST(xsd_fails(param_type::boolean, ""));
    BOOST_TEST(xsd_fails(param_type::boolean, "2"));
}

BOOST_AUTO_TEST_CASE(xsd_int_takes_sign_and_surrounding_space_and_refuses_overflow) {
    BOOST_TEST(xsd<std::int32_t>(param_type::int32, "42") == 42);
    BOOST_TEST(xsd<std::int32_t>(param_type::int32, "+42") == 42);
    BOOST_TEST(xsd<std::int32_t>(param_type::int32, "-42") == -42);
    BOOST_TEST(xsd<std::int32_t>(param_type::int32, "  007 \r\n") == 7);
    BOOST_TEST(xsd<std::int32_t>(param_type::int32, "2147483647") == 2147483647);
    BOOST_TEST(xsd<std::int32_t>(param_type::int32, "-2147483648") == -2147483647 - 1);
    BOOST_TEST(xsd_fails(param_type::int32, "2147483648"));
    BOOST_TEST(xsd_fails(param_type::int32, "-2147483649"));
    BOOST_TEST(xsd_fails(param_type::int32, "1 2"));
    BOOST_TEST(xsd_fails(param_type::int32, "1.0"));
    BOOST_TEST(xsd_fails(param_type::int32, "+-1"));
    BOOST_TEST(xsd_fails(param_type::int32, "0x10"));
    BOOST_TEST(xsd_fails(param_type::int32, ""));
    BOOST_TEST(xsd_fails(param_type::int32, "+"));
}

BOOST_AUTO_TEST_CASE(xsd_long_covers_64_bits_and_refuses_overflow) {
    BOOST_TEST(xsd<std::int64_t>(param_type::int64, "9223372036854775807") == INT64_MAX);
    BOOST_TEST(xsd<std::int64_t>(param_type::int64, "-9223372036854775808") == INT64_MIN);
    BOOST_TEST(xsd_fails(param_type::int64, "9223372036854775808"));
    BOOST_TEST(xsd<std::int64_t>(param_type::int64, " 12 ") == 12);
}

BOOST_AUTO_TEST_CASE(xsd_double_takes_decimal_exponent_and_the_special_values) {
    BOOST_TEST(xsd<double>(param_type::float64, "12.5") == 12.5);
    BOOST_TEST(xsd<double>(param_type::float64, "-.5") == -0.5);
    BOOST_TEST(xsd<double>(param_type::float64, "5.") == 5.0);
    BOOST_TEST(xsd<double>(param_type::float64, "1E3") == 1000.0);
    BOOST_TEST(xsd<double>(param_type::float64, "+1e-2") == 0.01);
    BOOST_TEST(std::isinf(xsd<double>(param_type::float64, "INF")));
    BOOST_TEST(xsd<double>(param_type::float64, "-INF") < 0);
    BOOST_TEST(std::isnan(xsd<double>(param_type::float64, "NaN")));
    BOOST_TEST(xsd_fails(param_type::float64, "12,5"));
    BOOST_TEST(xsd_fails(param_type::float64, "inf"));
    BOOST_TEST(xsd_fails(param_type::float64, "Infinity"));
    BOOST_TEST(xsd_fails(param_type::float64, "nan"));
    BOOST_TEST(xsd_fails(param_type::float64, "1e"));
    BOOST_TEST(xsd_fails(param_type::float64, "."));
    BOOST_TEST(xsd_fails(param_type::float64, "0x1p3"));
    BOOST_TEST(xsd_fails(param_type::float64, "1e999"));
}

BOOST_AUTO_TEST_CASE(xsd_enum_is_an_exact_name) {
    BOOST_TEST(xsd<provider>(param_type::provider, "Android") == provider::Android);
    BOOST_TEST(xsd<provider>(param_type::provider, "WindowsUWP") == provider::WindowsUWP);
    BOOST_TEST(xsd_fails(param_type::provider, "android"));
    BOOST_TEST(xsd_fails(param_type::provider, "1"));
    BOOST_TEST(xsd_fails(param_type::provider, ""));
}

BOOST_AUTO_TEST_CASE(strings_are_kept_as_they_are) {
    BOOST_TEST(xsd<std::string>(param_type::string, " a b ") == " a b ");
    BOOST_TEST(form<std::string>(param_type::string, "") == "");
}

BOOST_AUTO_TEST_CASE(form_boolean_takes_any_letter_case_and_1_0) {
    BOOST_TEST(form<bool>(param_type::boolean, "TRUE"));
    BOOST_TEST(form<bool>(param_type::boolean, "True"));
    BOOST_TEST(!form<bool>(param_type::boolean, "fAlSe"));
    BOOST_TEST(form<bool>(param_type::boolean, "1"));
    BOOST_TEST(!form<bool>(param_type::boolean, "0"));
    BOOST_TEST(form_fails(param_type::boolean, "yes"));
    BOOST_TEST(form_fails(param_type::boolean, ""));
}

BOOST_AUTO_TEST_CASE(form_numbers_are_invariant_culture_without_thousands_separators) {
    BOOST_TEST(form<std::int32_t>(param_type::int32, "-15") == -15);
    BOOST_TEST(form<std::int64_t>(param_type::int64, "123456789012") == 123456789012LL);
    BOOST_TEST(form<double>(param_type::float64, "12.5") == 12.5);
    BOOST_TEST(form_fails(param_type::float64, "12,5"));
    BOOST_TEST(form_fails(param_type::int32, "1,000"));
    BOOST_TEST(form_fails(param_type::int32, ""));
    BOOST_TEST(form_fails(param_type::int32, "4294967296"));
    BOOST_TEST(std::isinf(form<double>(param_type::float64, "Infinity")));
    BOOST_TEST(form_fails(param_type::float64, "INF"));
}

BOOST_AUTO_TEST_CASE(form_enum_is_an_exact_name) {
    BOOST_TEST(form<provider>(param_type::provider, "iOS") == provider::iOS);
    BOOST_TEST(form_fails(param_type::provider, "IOS"));
}

BOOST_AUTO_TEST_SUITE_END()
