// What nginx and the SQL functions must restate of keeper: the six group names nginx routes, the
// pages it answers itself (generated, nginx/keeper-errors.conf), and the result codes the
// functions return, by name (db/functions/keeper_result.sql). Each is compared with the one
// definition in core/, so an edit to either side that the other lacks fails here.
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <regex>
#include <set>
#include <sstream>

#include "tests/support/printers.hpp"

#include "core/api/fault.hpp"
#include "core/api/fault_texts.hpp"
#include "core/api/result_code.hpp"
#include "core/api/settings.hpp"
#include "core/domain/operation_table.hpp"
#include "core/pages/nginx_errors.hpp"
#include "core/wire/response_writer.hpp"
#include "tests/support/files.hpp"

using namespace keeper::core;

namespace {

std::string source(const std::string& path) {
    auto text = keeper::test::read_file(std::string{KEEPER_SOURCE_DIR} + "/" + path);
    BOOST_REQUIRE(!text.empty());
    return text;
}

std::string between(const std::string& text, const std::string& open, const std::string& close) {
    const auto start = text.find(open);
    if (start == std::string::npos) return {};
    const auto from = start + open.size();
    return text.substr(from, text.find(close, from) - from);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(restatements)

// A worker host's nginx and the front (which passes calls on to the hosts) route the same groups.
BOOST_AUTO_TEST_CASE(nginx_routes_exactly_the_groups_of_the_operation_table) {
    std::set<std::string> groups;
    for (const auto g : all_groups()) groups.insert(std::string{group_name(g)});
    for (const auto* conf : {"nginx/keeper-locations.conf", "nginx/keeper-front-locations.conf"}) {
        const auto listed = between(source(conf), "location ~ ^/(", ")\\.asmx");
        BOOST_TEST_REQUIRE(!listed.empty(), conf);
        std::set<std::string> routed;
        std::istringstream names{listed};
        for (std::string name; std::getline(names, name, '|');) routed.insert(name);
        BOOST_TEST(routed == groups, conf << " routes " << listed);
    }
}

// nginx's pages are the generator's, word for word: each is the fault keeper itself answers in
// its place (core/pages/nginx_errors.cpp), so no sentence of them is written by hand.
BOOST_AUTO_TEST_CASE(nginx_pages_are_the_generated_ones) {
    BOOST_TEST((source("nginx/keeper-errors.conf") == write_nginx_errors()),
               "regenerate: build/keeperctl/keeperctl nginx-errors > nginx/keeper-errors.conf");
}

// The pages' texts are keeper's own: the JSON page for a body over the limit is what keeper
// answers a JSON call over it, and nginx's "outcome unknown" shares keeper's sentence.
BOOST_AUTO_TEST_CASE(nginx_pages_say_what_keeper_says) {
    const auto pages = write_nginx_errors();
    const auto too_large =
        write_fault(transport::json, fault(fault_kind::body_too_large, body_too_large_text(settings{}.body_limit)));
    BOOST_TEST(pages.find("return 413 '" + too_large.body + "';") != std::string::npos);
    const auto keepers = outcome_unknown_text("X", unknown_because::unconfirmed);
    const auto tail = keepers.substr(keepers.find("): "));
    std::size_t unknown_pages = 0;
    for (auto at = pages.find(tail); at != std::string::npos; at = pages.find(tail, at + 1)) ++unknown_pages;
    BOOST_TEST(unknown_pages == 8u);  // 502 and 504, four transports each
}

// keeper_result('name') is the code core names so, for every code and no other name; and every
// name a function passes it is one of them (an unknown name would be NULL, not an error).
BOOST_AUTO_TEST_CASE(the_sql_names_the_result_codes_as_core_does) {
    const auto file = source("db/functions/keeper_result.sql");
    static const std::regex arm{R"(WHEN '([a-z_]+)' THEN (\d+))"};
    std::size_t arms = 0;
    for (auto it = std::sregex_iterator(file.begin(), file.end(), arm); it != std::sregex_iterator(); ++it, ++arms) {
        const auto code = std::stoi((*it)[2]);
        BOOST_TEST_REQUIRE(code <= last_result_code);
        BOOST_TEST((*it)[1].str() == std::string{result_code_names[static_cast<std::size_t>(code)]});
    }
    BOOST_TEST(arms == result_code_names.size());
    static const std::regex use{R"(keeper_result\('([^']*)'\))"};
    const std::set<std::string> names(result_code_names.begin(), result_code_names.end());
    std::size_t uses = 0;
    for (const auto& entry : std::filesystem::directory_iterator{std::string{KEEPER_SOURCE_DIR} + "/db/functions"}) {
        const auto text = source("db/functions/" + entry.path().filename().string());
        for (auto it = std::sregex_iterator(text.begin(), text.end(), use); it != std::sregex_iterator();
             ++it, ++uses) {
            BOOST_TEST(names.contains((*it)[1].str()), entry.path().filename() << " names " << (*it)[1]);
        }
    }
    BOOST_TEST(uses > 30u);
}

BOOST_AUTO_TEST_SUITE_END()
