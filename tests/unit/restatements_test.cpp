// What nginx and the SQL functions must restate of keeper: the six group names nginx routes and
// the fault envelopes it returns itself (the throttle, a body over the limit, a pool that cannot
// answer), and the result codes the functions return, by name (db/functions/keeper_result.sql).
// Each is compared with the one definition in core/, so an edit to either side that the other
// lacks fails here.
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "tests/support/printers.hpp"

#include "core/api/fault.hpp"
#include "core/api/result_code.hpp"
#include "core/api/settings.hpp"
#include "core/domain/operation_table.hpp"
#include "core/wire/response_writer.hpp"

using namespace keeper::core;

namespace {

std::string source(const std::string& path) {
    std::ifstream in{std::string{KEEPER_SOURCE_DIR} + "/" + path};
    std::ostringstream text;
    text << in.rdbuf();
    BOOST_REQUIRE(!text.str().empty());
    return text.str();
}

// Every `return STATUS '<body>';` of a file: status and body.
std::vector<std::pair<int, std::string>> returned_bodies(const std::string& file) {
    static const std::regex returned{R"(return (\d{3}) '([^']*)';)"};
    std::vector<std::pair<int, std::string>> out;
    for (auto it = std::sregex_iterator(file.begin(), file.end(), returned); it != std::sregex_iterator(); ++it) {
        out.emplace_back(std::stoi((*it)[1]), (*it)[2]);
    }
    return out;
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

// Each SOAP envelope and JSON body nginx returns is the one keeper's writers make for the same
// fault: the same bytes a client parses when keeper answers.
BOOST_AUTO_TEST_CASE(nginx_faults_are_the_envelopes_keepers_writers_make) {
    int xml = 0;
    int json = 0;
    for (const auto& [status, body] : returned_bodies(source("nginx/keeper-errors.conf"))) {
        BOOST_TEST_CONTEXT(status << " " << body) {
            if (body.starts_with("<?xml")) {
                const bool soap12 = body.find("http://www.w3.org/2003/05/soap-envelope") != std::string::npos;
                const bool client =
                    body.find("soap:Client") != std::string::npos || body.find("soap:Sender") != std::string::npos;
                const auto reason = soap12 ? between(body, "<soap:Text xml:lang=\"en\">", "</soap:Text>")
                                           : between(body, "<faultstring>", "</faultstring>");
                const auto made = write_fault(soap12 ? transport::soap12 : transport::soap11,
                                              fault(client ? fault_kind::client : fault_kind::server, reason));
                BOOST_TEST(body == made.body);
                BOOST_TEST(status == made.status);
                ++xml;
            } else if (body.starts_with("{")) {
                const auto reason = between(body, "{\"Message\":\"", "\"}");
                BOOST_TEST(body == write_fault(transport::json, fault(fault_kind::server, reason)).body);
                ++json;
            }
        }
    }
    BOOST_TEST(xml == 4);
    BOOST_TEST(json >= 4);
}

// nginx's own 413 names the limit keeper enforces (client_max_body_size is checked against the
// default in the settings tests).
BOOST_AUTO_TEST_CASE(nginx_names_the_body_limit_keeper_enforces) {
    const auto file = source("nginx/keeper-errors.conf");
    BOOST_TEST(file.find("The request body is larger than " + std::to_string(settings{}.body_limit) + " bytes.") !=
               std::string::npos);
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
