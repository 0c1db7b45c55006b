// Replays tests/golden/*.case through nginx: every operation over every transport, byte for byte.
#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <regex>
#include <set>

#include "core/domain/code_hash.hpp"
#include "core/domain/operation_table.hpp"
#include "core/wire/transport_table.hpp"
#include "stack_fixture.hpp"
#include "tests/support/files.hpp"

using namespace keeper::test;
namespace fs = std::filesystem;

namespace {

const std::string golden_dir = KEEPER_GOLDEN_DIR;

struct golden_case {
    std::string method, target;
    std::map<std::string, std::string> request_headers;
    std::string request_body;
    int status = 0;
    std::map<std::string, std::string> response_headers;  // names lower case
    std::string response_body;
};

// "Name: value" lines up to a blank line, from pos; moves pos past the blank line.
std::map<std::string, std::string> read_headers(const std::string& text, std::size_t& pos, bool lower_names) {
    std::map<std::string, std::string> out;
    while (true) {
        const auto eol = text.find('\n', pos);
        const auto line = text.substr(pos, eol - pos);
        pos = eol + 1;
        if (line.empty()) return out;
        auto name = line.substr(0, line.find(':'));
        if (lower_names)
            for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        out[name] = line.substr(line.find(':') + 2);
    }
}

golden_case parse_case(const std::string& text) {
    golden_case c;
    std::size_t pos = 0;
    while (text.compare(pos, 1, "#") == 0) pos = text.find('\n', pos) + 1;
    const auto request_line = text.substr(pos, text.find('\n', pos) - pos);
    pos += request_line.size() + 1;
    c.method = request_line.substr(0, request_line.find(' '));
    c.target = request_line.substr(request_line.find(' ') + 1);
    c.request_headers = read_headers(text, pos, false);
    const std::string separator = "\n=== response\n";
    const auto split = text.find(separator, pos);
    c.request_body = text.substr(pos, split - pos);
    pos = split + separator.size();
    const auto status_end = text.find('\n', pos);
    c.status = std::stoi(text.substr(pos, status_end - pos));
    pos = status_end + 1;
    c.response_headers = read_headers(text, pos, true);
    c.response_body = text.substr(pos);
    if (!c.response_body.empty() && c.response_body.back() == '\n') c.response_body.pop_back();
    return c;
}

// A case's body may hold one wildcard for a time: {{dateTime}} (xs:dateTime in ASMX's UTC form)
// or {{ms}} (the milliseconds of JSON's "\/Date(ms)\/", 13 digits until the year 2286).
bool body_matches(const std::string& expected, const std::string& actual) {
    static const std::vector<std::pair<std::string, std::regex>> wildcards{
        {"{{dateTime}}", std::regex{R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,7})?Z)"}},
        {"{{ms}}", std::regex{R"(\d{13})"}}};
    for (const auto& [token, value] : wildcards) {
        const auto at = expected.find(token);
        if (at == std::string::npos) continue;
        const auto prefix = expected.substr(0, at), suffix = expected.substr(at + token.size());
        if (actual.size() < prefix.size() + suffix.size() || actual.compare(0, prefix.size(), prefix) != 0 ||
            actual.compare(actual.size() - suffix.size(), suffix.size(), suffix) != 0) {
            return false;
        }
        return std::regex_match(actual.substr(prefix.size(), actual.size() - prefix.size() - suffix.size()), value);
    }
    return expected == actual;
}

struct golden_fixture : stack_fixture {
    golden_fixture() {
        pqxx::work tx{db};
        tx.exec("INSERT INTO logins (login, shared_secret) VALUES ('golden', 'golden-secret') ON CONFLICT DO NOTHING");
        tx.exec(
            "INSERT INTO sessions (session_hash, login_id, authenticated_at) "
            "SELECT keeper_session_hash('{11111111-2222-3333-4444-555555555555}'), id, now() "
            "FROM logins WHERE login = 'golden' ON CONFLICT DO NOTHING");
        tx.exec(
            "INSERT INTO applications (app_id, shared_secret, push_provider) VALUES ('golden-app', "
            "'golden-app-secret', 'Android') ON CONFLICT DO NOTHING");
        tx.exec(
            "INSERT INTO purses (purse, login_id) SELECT 'Z900000000001', id FROM logins WHERE login = 'golden' ON "
            "CONFLICT DO NOTHING");
        tx.exec(
            "INSERT INTO cards (id, login_id) SELECT 900001, id FROM logins WHERE login = 'golden' ON CONFLICT DO "
            "NOTHING");
        tx.exec_params(
            "INSERT INTO protected_transfers (id, login_id, amount, code_hash, expires_at) SELECT 900001, id, 100, $1, "
            "now() + interval '1 day' "
            "FROM logins WHERE login = 'golden' ON CONFLICT DO NOTHING",
            keeper::core::make_code_hash("4321"));
        tx.exec(
            "INSERT INTO telepay_profiles (id, login_id, name) SELECT 900001, id, 'Golden' FROM logins WHERE login = "
            "'golden' ON CONFLICT DO NOTHING");
        tx.exec_params(
            "INSERT INTO telepay_tasks (profile_id, id, code_hash, expires_at) VALUES (900001, 1, $1, now() + interval "
            "'1 day') "
            "ON CONFLICT DO NOTHING",
            keeper::core::make_code_hash("777"));
        tx.exec(
            "INSERT INTO push_sms (id, login_id) SELECT 900001, id FROM logins WHERE login = 'golden' ON CONFLICT DO "
            "NOTHING");
        tx.commit();
    }
};

// A request body of "{{bytes:N}}" stands for N bytes of 'x' (a body over a limit).
std::string expanded_body(const std::string& body) {
    const std::string prefix = "{{bytes:";
    if (body.rfind(prefix, 0) != 0 || body.size() < prefix.size() + 2 || body.substr(body.size() - 2) != "}}")
        return body;
    return std::string(std::stoul(body.substr(prefix.size(), body.size() - prefix.size() - 2)), 'x');
}

std::vector<fs::path> case_files(const std::string& dir = golden_dir) {
    std::vector<fs::path> out;
    for (const auto& e : fs::directory_iterator{dir}) {
        if (e.path().extension() == ".case") out.push_back(e.path());
    }
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(e2e_golden, golden_fixture)

BOOST_AUTO_TEST_CASE(every_operation_of_the_table_has_a_case_per_transport_and_nothing_else) {
    std::set<std::string> expected, found;
    for (const auto& op : keeper::core::operations()) {
        for (const auto& t : keeper::core::transports())
            expected.insert(std::string{op.name} + "." + std::string{t.name} + ".case");
    }
    for (const auto& p : case_files()) found.insert(p.filename().string());
    BOOST_TEST(expected.size() == 65u);
    BOOST_TEST((found == expected));
}

void replay(int port, const std::vector<fs::path>& files) {
    BOOST_TEST_REQUIRE(!files.empty());
    for (const auto& file : files) {
        BOOST_TEST_CONTEXT(file.filename().string()) {
            const auto c = parse_case(read_file(file.string()));
            const auto reply = http_request(port, c.method, c.target, c.request_headers, expanded_body(c.request_body));
            BOOST_TEST(reply.status == c.status);
            for (const auto& [name, value] : c.response_headers) BOOST_TEST(reply.header(name) == value);
            BOOST_TEST(body_matches(c.response_body, reply.body), "got: " << reply.body);
        }
    }
}

BOOST_AUTO_TEST_CASE(every_case_replays_byte_for_byte) { replay(port, case_files()); }

// tests/golden/errors: answers that are not an operation's result, in each transport's shape.
BOOST_AUTO_TEST_CASE(every_error_case_replays_byte_for_byte) {
    const auto files = case_files(golden_dir + "/errors");
    BOOST_TEST(files.size() >= 2u);
    replay(port, files);
}

BOOST_AUTO_TEST_SUITE_END()
