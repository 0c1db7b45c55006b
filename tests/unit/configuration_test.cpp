#include <boost/test/unit_test.hpp>

#include "tests/support/printers.hpp"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <unistd.h>

#include "core/pages/api_reference.hpp"
#include "core/pages/openapi_writer.hpp"
#include "core/pipeline/log_line.hpp"
#include "core/pipeline/request_router.hpp"
#include "core/domain/trace_context.hpp"
#include "tests/support/soap_messages.hpp"
#include "tests/support/unreachable_store.hpp"
#include "core/domain/operation_table.hpp"
#include "config/connection_strings.hpp"
#include "config/settings_file.hpp"
#include "core/api/settings.hpp"
#include "tests/support/files.hpp"

using namespace keeper::core;
using namespace keeper::config;

namespace {

// A value other than a key's default that its rule accepts.
std::string another_valid_value(const std::string& key, const std::string& value) {
    if (key == "test_form") return value == "local" ? "any" : "local";
    if (key == "log_format") return value == "text" ? "json" : "text";
    if (key == "public_base_url") return "https://api.example.com";
    if (value == "true" || value == "false") return value == "true" ? "false" : "true";
    if (!value.empty() && value.find_first_not_of("0123456789") == std::string::npos)
        return std::to_string(std::stoll(value) + 1);
    return value + "x";
}

// A directory of the test's own for config files, removed when it goes.
class config_dir {
public:
    explicit config_dir(const std::string& name)
        : m_path(std::filesystem::temp_directory_path() / (name + "-" + std::to_string(::getpid()))) {
        std::filesystem::create_directories(m_path);
    }
    ~config_dir() { std::filesystem::remove_all(m_path); }
    config_dir(const config_dir&) = delete;
    config_dir& operator=(const config_dir&) = delete;

    // The file `name` with `text` in it; its path.
    std::string write(const std::string& name, const std::string& text) const {
        std::ofstream{m_path / name} << text;
        return (m_path / name).string();
    }
    std::string path(const std::string& name) const { return (m_path / name).string(); }

private:
    std::filesystem::path m_path;
};

}  // namespace

BOOST_AUTO_TEST_SUITE(settings_file)

BOOST_AUTO_TEST_CASE(defaults_hold_without_a_file) {
    const auto s = parse_settings("", {});
    BOOST_TEST(s.api_namespace == "http://tempuri.org/");
    BOOST_TEST(s.body_limit == 65536u);
    BOOST_TEST(s.session_ttl.count() == 86400);
    BOOST_TEST(s.auth_max_failures == 5);
    BOOST_TEST(s.auth_failure_window.count() == 900);
    BOOST_TEST(s.topup_max_amount == "15000");
    BOOST_TEST(s.card_daily_limit == "50000");
}

BOOST_AUTO_TEST_CASE(file_values_apply_and_environment_overrides_them) {
    const auto s = parse_settings("# comment\nworkers = 3\n\n  session_ttl_seconds=60  \napi_namespace = urn:x\n",
                                  {{"KEEPER_WORKERS", "5"}, {"KEEPER_OTHER", "ignored"}});
    BOOST_TEST(s.workers == 5);
    BOOST_TEST(s.session_ttl.count() == 60);
    BOOST_TEST(s.api_namespace == "urn:x");
}

BOOST_AUTO_TEST_CASE(the_workers_connection_string_carries_a_connect_timeout) {
    const std::string tcp = "keepalives_idle=10 keepalives_interval=3 keepalives_count=3 tcp_user_timeout=10000";
    const std::string tcp_uri = "keepalives_idle=10&keepalives_interval=3&keepalives_count=3&tcp_user_timeout=10000";
    auto s = parse_settings("database_url = host=db1,db2 dbname=keeper target_session_attrs=read-write\n", {});
    BOOST_TEST(worker_conninfo(s) ==
               "host=db1,db2 dbname=keeper target_session_attrs=read-write connect_timeout=3 " + tcp);
    s = parse_settings(
        "database_url = postgresql://db1,db2/keeper?target_session_attrs=read-write\nconnect_timeout_seconds = 7\n",
        {});
    BOOST_TEST(worker_conninfo(s) ==
               "postgresql://db1,db2/keeper?target_session_attrs=read-write&connect_timeout=7&" + tcp_uri);
    s = parse_settings("database_url = postgresql://db1/keeper\n", {});
    BOOST_TEST(worker_conninfo(s) == "postgresql://db1/keeper?connect_timeout=3&" + tcp_uri);
    s = parse_settings("database_url = dbname=keeper connect_timeout=10 keepalives_idle=60\n", {});
    BOOST_TEST(worker_conninfo(s) ==
               "dbname=keeper connect_timeout=10 keepalives_idle=60 keepalives_interval=3 keepalives_count=3 "
               "tcp_user_timeout=10000");
}

BOOST_AUTO_TEST_CASE(unknown_keys_and_bad_values_name_the_key) {
    const auto message = [](const std::string& text) {
        try {
            parse_settings(text, {});
        } catch (const config_error& e) {
            return std::string{e.what()};
        }
        return std::string{"no error"};
    };
    BOOST_TEST(message("wokers = 3").find("'wokers'") != std::string::npos);
    BOOST_TEST(message("workers = three").find("'workers'") != std::string::npos);
    BOOST_TEST(message("workers = 0").find("'workers'") != std::string::npos);
    BOOST_TEST(message("topup_max_amount = 1.234").find("'topup_max_amount'") != std::string::npos);
    BOOST_TEST(message("just words").find("line 1") != std::string::npos);
    BOOST_CHECK_THROW(parse_settings("", {{"KEEPER_BODY_LIMIT", "-1"}}), config_error);
}

// A pool that refuses its file waits and answers "not applied" (docs/operations.md, "Configure"),
// and logs meanwhile in the format the file asks for, read from its log_format line alone.
BOOST_AUTO_TEST_CASE(a_refused_file_still_gives_the_waiting_pool_its_log_format) {
    const config_dir dir{"keeper-log-format"};
    const auto refused = dir.write("refused.conf", "log_format = json\nworkers = many\n");
    BOOST_CHECK_THROW(load_settings(refused), config_error);
    BOOST_TEST((log_format_of(refused) == log_format_kind::json));
    BOOST_TEST((log_format_of(dir.write("unknown.conf", "log_format = yaml\n")) == log_format_kind::text));
    BOOST_TEST((log_format_of(dir.path("missing.conf")) == log_format_kind::text));
}

// admin.conf holds the connection strings the workers must not read: only those three keys, and
// they win over keeper.conf's (docs/operations.md, "Install").
BOOST_AUTO_TEST_CASE(the_admin_file_holds_only_the_admin_connection_strings_and_wins_over_the_config) {
    const config_dir dir{"keeper-admin-conf"};
    const auto write = [&](const std::string& name, const std::string& text) { return dir.write(name, text); };
    const auto config = write("keeper.conf", "database_url = dbname=k user=keeper_worker\nadmin_database_url = old\n");
    BOOST_TEST(admin_config_path(config).empty());  // none beside it yet
    const auto admin = write("admin.conf",
                             "admin_database_url = dbname=k user=keeper password=p\n"
                             "maintain_database_url = dbname=k user=keeper_maintain\n");
    BOOST_TEST(admin_config_path(config) == admin);
    const auto s = load_settings(config, admin);
    BOOST_TEST(s.database_url == "dbname=k user=keeper_worker");
    BOOST_TEST(s.admin_database_url == "dbname=k user=keeper password=p");
    BOOST_TEST(s.maintain_database_url == "dbname=k user=keeper_maintain");
    BOOST_TEST(load_settings(config).admin_database_url == "old");  // the workers read keeper.conf alone
    settings other;
    try {
        apply_admin_file(other, "# the workers' own\ndatabase_url = x\n");
        BOOST_FAIL("admin.conf took a worker key");
    } catch (const config_error& e) {
        BOOST_TEST(std::string{e.what()}.find("admin.conf line 2: 'database_url' belongs in keeper.conf") == 0,
                   e.what());
    }
}

BOOST_AUTO_TEST_CASE(every_key_is_documented_with_its_default) {
    for (const auto& d : setting_docs()) {
        BOOST_TEST(!d.description.empty());
        BOOST_CHECK_NO_THROW(parse_settings(d.key + " = " + d.default_value + "\n", {}));
    }
}

BOOST_AUTO_TEST_CASE(the_shipped_config_file_shows_every_key_with_its_default) {
    const auto file = keeper::test::read_file(std::string{KEEPER_SOURCE_DIR} + "/packaging/keeper.conf");
    for (const auto& d : setting_docs()) {
        const auto line = "#" + d.key + (d.default_value.empty() ? " =" : " = " + d.default_value);
        BOOST_TEST(file.find(line + "\n") != std::string::npos, "missing: " << line);
    }
    // Uncommented as shipped, it is exactly the defaults.
    std::string uncommented;
    std::istringstream lines{file};
    for (std::string l; std::getline(lines, l);) {
        if (l.rfind("#", 0) == 0 && l.find(" = ") != std::string::npos && l.find(' ') > 1)
            uncommented += l.substr(1) + "\n";
    }
    BOOST_TEST((parse_settings(uncommented, {}) == keeper::core::settings{}));
}

// Each key's default is its member's in core::settings, shown once: read back, it gives the same
// settings; and each key sets a member of its own (another valid value changes the settings).
BOOST_AUTO_TEST_CASE(every_key_reads_its_default_back_and_sets_a_member_of_its_own) {
    const keeper::core::settings defaults{};
    for (const auto& def : keeper::config::setting_definitions()) {
        BOOST_TEST_CONTEXT(def.doc.key) {
            auto s = defaults;
            def.apply(s, def.doc.default_value);
            BOOST_TEST((s == defaults));
            const auto other = another_valid_value(def.doc.key, def.doc.default_value);
            def.apply(s, other);
            BOOST_TEST((s != defaults), "set to " << other);
        }
    }
}

// keeper, not nginx's timeout, answers every call: a deadline too close to nginx's is refused.
BOOST_AUTO_TEST_CASE(a_call_budget_too_close_to_nginx_read_timeout_is_refused) {
    BOOST_CHECK_NO_THROW(parse_settings("call_budget_ms = 28000\n", {}));
    BOOST_CHECK_THROW(parse_settings("call_budget_ms = 28001\n", {}), config_error);
    BOOST_CHECK_NO_THROW(parse_settings("call_budget_ms = 40000\nnginx_read_timeout_seconds = 60\n", {}));
    BOOST_CHECK_THROW(parse_settings("nginx_read_timeout_seconds = 11\n", {}), config_error);
}

namespace {

// The value of a server-level directive (at the start of a line) in a shipped nginx file.
std::string directive_in(const std::string& conf, const std::string& directive) {
    const auto file = keeper::test::read_file(std::string{KEEPER_SOURCE_DIR} + "/nginx/" + conf);
    const auto at = file.find("\n" + directive + " ");
    BOOST_REQUIRE_MESSAGE(at != std::string::npos, conf << " has no " << directive);
    const auto start = file.find_first_not_of(' ', at + directive.size() + 1);
    return file.substr(start, file.find(';', start) - start);
}

int seconds_of(const std::string& value) {
    BOOST_REQUIRE(value.ends_with("s"));
    return std::stoi(value);
}

}  // namespace

// The shipped nginx files say what the settings' defaults assume of them.
BOOST_AUTO_TEST_CASE(the_shipped_nginx_locations_agree_with_the_defaults) {
    const auto defaults = parse_settings("", {});
    BOOST_TEST(directive_in("keeper-locations.conf", "fastcgi_read_timeout") ==
               std::to_string(defaults.nginx_read_timeout.count()) + "s");
    BOOST_TEST(directive_in("keeper-locations.conf", "client_max_body_size") ==
               std::to_string(defaults.body_limit / 1024) + "k");
}

// The front takes no larger body than a host, and waits for a host the call's deadline and 1 s
// for the answer's way back: a live host has answered by then, so one that has not is silent
// (docs/scaling.md, "The front").
BOOST_AUTO_TEST_CASE(the_front_waits_a_calls_deadline_and_takes_no_larger_body) {
    BOOST_TEST(directive_in("keeper-front-locations.conf", "client_max_body_size") ==
               directive_in("keeper-locations.conf", "client_max_body_size"));
    const auto budget = std::chrono::duration_cast<std::chrono::seconds>(parse_settings("", {}).call_budget).count();
    BOOST_TEST(seconds_of(directive_in("keeper-front-locations.conf", "proxy_read_timeout")) == budget + 1);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(operation_table)

BOOST_AUTO_TEST_CASE(session_operations_have_the_published_signatures) {
    const auto* auth = find_operation(api_group::simple_auth, "Authenticate");
    BOOST_TEST_REQUIRE(auth != nullptr);
    BOOST_TEST(auth->params.size() == 3u);
    BOOST_TEST(auth->params[0].name == "sessionId");
    BOOST_TEST(auth->params[1].name == "login");
    BOOST_TEST(auth->params[2].name == "authHash");
    BOOST_TEST((auth->result == result_type::int32));
    const auto* check = find_operation(api_group::account, "CheckSessionEx");
    BOOST_TEST_REQUIRE(check != nullptr);
    BOOST_TEST(check->params.at(1).name == "appId");
    const auto* now = find_operation(api_group::global, "GetUtcNow");
    BOOST_TEST_REQUIRE(now != nullptr);
    BOOST_TEST(now->params.empty());
    BOOST_TEST((now->result == result_type::date_time));
    const auto* desc = find_operation(api_group::errors, "GetErrorDesc");
    BOOST_TEST_REQUIRE(desc != nullptr);
    BOOST_TEST((desc->params.at(0).type == param_type::int32));
    BOOST_TEST((desc->result == result_type::string));
}

BOOST_AUTO_TEST_CASE(names_are_unique_within_a_group_and_every_entry_is_documented) {
    for (const auto& a : operations()) {
        BOOST_TEST(!a.summary.empty());
        int same = 0;
        for (const auto& b : operations()) same += (a.group == b.group && a.name == b.name) ? 1 : 0;
        BOOST_TEST(same == 1);
    }
}

BOOST_AUTO_TEST_CASE(every_result_code_is_reachable_through_some_operation) {
    std::set<int> reachable;
    for (const auto& op : operations()) {
        for (auto code : op.results) reachable.insert(static_cast<int>(code));
        BOOST_TEST((op.results.empty() == (op.result != result_type::int32)), op.name);
    }
    BOOST_TEST(reachable.size() == static_cast<std::size_t>(last_result_code + 1));
}

BOOST_AUTO_TEST_CASE(the_committed_api_reference_is_the_generated_one) {
    BOOST_TEST((keeper::test::read_file(std::string{KEEPER_SOURCE_DIR} + "/docs/api.md") == write_api_reference()),
               "regenerate: build/keeperctl/keeperctl api-reference > docs/api.md");
}

BOOST_AUTO_TEST_CASE(the_committed_openapi_document_is_the_generated_one) {
    BOOST_TEST((keeper::test::read_file(std::string{KEEPER_SOURCE_DIR} + "/docs/openapi.json") == write_openapi()),
               "regenerate: build/keeperctl/keeperctl openapi > docs/openapi.json");
}

BOOST_AUTO_TEST_CASE(group_names_map_both_ways) {
    for (auto g : all_groups()) BOOST_TEST((group_from_name(group_name(g)) == g));
    BOOST_TEST(!group_from_name("accountapi").has_value());
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(log_lines)

BOOST_AUTO_TEST_CASE(a_line_names_request_operation_transport_outcome_and_duration) {
    handled_request h;
    h.log = {"SimpleAuthApi", "Authenticate", transport::soap11, "result=0", "", nullptr, 0, std::nullopt};
    h.response.status = 200;
    BOOST_TEST(format_log_line("abc", h, std::chrono::microseconds{1500}) ==
               "request_id=abc group=SimpleAuthApi operation=Authenticate transport=soap11 outcome=result=0 status=200 "
               "duration_ms=1.500");
}

BOOST_AUTO_TEST_CASE(a_replayed_or_retried_call_says_so) {
    handled_request h;
    h.log.replayed = true;
    h.log.retried = true;
    h.response.status = 200;
    const auto line = format_log_line("r", h, std::chrono::microseconds{0});
    BOOST_TEST(line.ends_with(" replayed=true retried=true"), line);
}

BOOST_AUTO_TEST_CASE(values_cannot_forge_lines) {
    handled_request h;
    h.log.detail = "bad\nrequest_id=forged \"x\"";
    const auto line = format_log_line("r", h, std::chrono::microseconds{0});
    BOOST_TEST(line.find('\n') == std::string::npos);
    BOOST_TEST(line.find("detail=\"bad?request_id=forged ?x?\"") != std::string::npos);
}

// The W3C trace a call belongs to follows its request id, in both forms; only a valid traceparent
// (version 00, lower-case hex, neither id all zeros) names one.
BOOST_AUTO_TEST_CASE(a_line_names_the_calls_trace_when_it_has_one) {
    const std::string parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    BOOST_TEST(trace_id_of(parent).value_or("none") == "4bf92f3577b34da6a3ce929d0e0e4736");
    for (const std::string bad : {"", "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
                                  "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
                                  "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
                                  "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
                                  "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",
                                  "00_4bf92f3577b34da6a3ce929d0e0e4736_00f067aa0ba902b7_01"}) {
        BOOST_TEST(!trace_id_of(bad).has_value(), bad);
    }
    auto r = keeper::test::request("GET", "/GlobalApi.asmx/GetUtcNow");
    r.traceparent = parent;
    keeper::test::unreachable_store db;
    const auto h = handle_request(r, db, keeper::core::settings{});
    BOOST_TEST(h.log.trace_id == "4bf92f3577b34da6a3ce929d0e0e4736");
    BOOST_TEST(format_log_line("rid", h, std::chrono::microseconds{0})
                   .starts_with(
                       "request_id=rid trace_id=4bf92f3577b34da6a3ce929d0e0e4736 group=GlobalApi operation=GetUtcNow"));
    const auto object =
        nlohmann::json::parse(format_log_line("rid", h, std::chrono::microseconds{0}, log_format_kind::json));
    BOOST_TEST(object["trace_id"] == "4bf92f3577b34da6a3ce929d0e0e4736");
    r.traceparent = "00-00000000000000000000000000000000-00f067aa0ba902b7-01";
    BOOST_TEST(format_log_line("rid", handle_request(r, db, keeper::core::settings{}), std::chrono::microseconds{0})
                   .starts_with("request_id=rid group="));
}

// log_format = json: the same fields, one object a line, numbers as numbers; no value can end
// the line or the object early.
BOOST_AUTO_TEST_CASE(a_json_line_holds_the_same_fields_as_the_text_line) {
    handled_request h;
    h.log = {"SimpleAuthApi", "Authenticate", transport::soap11, "result=0", "", nullptr, 0, std::nullopt};
    h.log.retried = true;
    h.log.detail = "bad\n\"}{\"request_id\":\"forged\\";
    h.response.status = 200;
    const auto line = format_log_line("abc", h, std::chrono::microseconds{1500}, log_format_kind::json);
    BOOST_TEST(line.find('\n') == std::string::npos);
    const auto object = nlohmann::json::parse(line);
    BOOST_TEST(object.size() == 9u, line);
    BOOST_TEST(object["request_id"] == "abc");
    BOOST_TEST(object["operation"] == "Authenticate");
    BOOST_TEST(object["transport"] == "soap11");
    BOOST_TEST(object["outcome"] == "result=0");
    BOOST_TEST(object["status"] == 200);
    BOOST_TEST(object["duration_ms"] == 1.5);
    BOOST_TEST(object["retried"] == true);
    BOOST_TEST(object["detail"] == "bad?\"}{\"request_id\":\"forged\\");
    const auto event = nlohmann::json::parse(format_event("pool", "worker 12 exited\n", log_format_kind::json));
    BOOST_TEST(event["source"] == "pool");
    BOOST_TEST(event["message"] == "worker 12 exited?");
    BOOST_TEST(format_event("pool", "8 workers started") == "pool: 8 workers started");
}

BOOST_AUTO_TEST_SUITE_END()
