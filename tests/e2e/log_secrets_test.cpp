// Nothing secret in any log (SPEC §7, docs/operations.md "Logs"): every operation over every transport with
// secrets, hashes, codes and session ids of its own, then every log of the stack — nginx's access
// and error logs, keeper's, PostgreSQL's — searched for each of them.
#include <boost/test/unit_test.hpp>

#include <unistd.h>

#include <chrono>
#include <functional>
#include <thread>

#include "keeperctl/provisioning.hpp"
#include "stack_fixture.hpp"
#include "tests/support/files.hpp"

using keeper::test::fields;
using keeper::test::http_reply;
using keeper::test::read_file;

namespace {

struct log_secrets_fixture : keeper::test::stack_fixture {
    using call_fn = std::function<http_reply(const std::string&, const std::string&, const fields&)>;
    std::vector<std::pair<std::string, call_fn>> transports{
        {"soap11", [this](auto& g, auto& o, auto& f) { return soap11_call(g, o, f); }},
        {"soap12", [this](auto& g, auto& o, auto& f) { return soap12_call(g, o, f); }},
        {"get", [this](auto& g, auto& o, auto& f) { return get_call(g, o, f); }},
        {"post", [this](auto& g, auto& o, auto& f) { return post_call(g, o, f); }},
    };
    std::vector<std::string> secrets;  // everything that must never reach a log

    // A value no log holds by chance: long, random, remembered as a secret.
    std::string secret(const std::string& prefix) {
        auto s = prefix + std::to_string(getpid()) + "q" +
                 std::to_string(std::chrono::steady_clock::now().time_since_epoch().count());
        secrets.push_back(s);
        return s;
    }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(e2e_log_secrets, log_secrets_fixture)

BOOST_AUTO_TEST_CASE(no_secret_hash_code_or_session_id_reaches_any_log) {
    namespace p = keeper::db;
    const auto login = unique("logsecret");
    const auto app = unique("logapp");
    const auto login_secret = secret("LoginSecret");
    const auto app_secret = secret("AppSecret");
    add_login(login, login_secret);
    add_app(app, app_secret, true);
    const int base = 700000 + (getpid() % 1000) * 10;
    const auto purse = "Z" + std::to_string(700000000000LL + base);
    p::add_purse(db, login, purse, "0");
    p::add_card(db, login, base, std::nullopt, false);
    p::add_profile(db, login, base, "Rent");

    int n = 0;
    for (const auto& [name, call] : transports) {
        ++n;
        const auto session = secret("sess-" + name + "-");
        const auto hash = keeper::core::expected_auth_hash(login, login_secret, session);
        secrets.push_back(hash);
        const auto user = unique("user");
        const auto app_hash = keeper::core::expected_auth_hash(app, app_secret, user);
        secrets.push_back(app_hash);
        const auto transfer_code = secret("T");
        const auto task_code = secret("K");
        p::add_transfer(db, login, base + n, "5", transfer_code, {3600});
        p::add_task(db, base, n, task_code, {3600});
        p::add_sms(db, login, base + n);

        BOOST_TEST(keeper::test::int_result(call("SimpleAuthApi", "Authenticate",
                                                 {{"sessionId", session}, {"login", login}, {"authHash", hash}})) == 0,
                   name);
        const std::vector<std::tuple<std::string, std::string, fields>> calls{
            {"AccountApi", "CheckSessionEx", {{"sessionId", session}, {"appId", app}}},
            {"AccountApi",
             "SetAccountPermits",
             {{"sessionId", session},
              {"acceptPayments", "true"},
              {"acceptInvoices", "false"},
              {"acceptMessages", "true"}}},
            {"AccountApi",
             "SetContactPermitsEx",
             {{"sessionId", session},
              {"wmid", "123456789012"},
              {"acceptPayments", "true"},
              {"acceptInvoices", "false"},
              {"acceptMessages", "true"},
              {"dontUseConfirmation", "false"}}},
            {"AccountApi",
             "FinishCodeProtectedOperation",
             {{"sessionId", session}, {"tranId", std::to_string(base + n)}, {"protectionCode", transfer_code + "x"}}},
            {"AccountApi",
             "FinishCodeProtectedOperation",
             {{"sessionId", session}, {"tranId", std::to_string(base + n)}, {"protectionCode", transfer_code}}},
            {"AccountApi",
             "TopupPurseFromAtmCard",
             {{"sessionId", session}, {"purseDest", purse}, {"cardId", std::to_string(base)}, {"amount", "1.25"}}},
            {"TelepayApi",
             "TelepaySchedulerConfirmCreate",
             {{"sessionId", session},
              {"profileId", std::to_string(base)},
              {"taskId", std::to_string(n)},
              {"code", task_code + "x"}}},
            {"TelepayApi",
             "TelepaySchedulerConfirmCreate",
             {{"sessionId", session},
              {"profileId", std::to_string(base)},
              {"taskId", std::to_string(n)},
              {"code", task_code}}},
            {"TelepayApi",
             "RenameTelepayProfile",
             {{"sessionId", session}, {"id", std::to_string(base)}, {"name", "Home"}}},
            {"PushApi",
             "SubscribeWithTagAndLocale",
             {{"sessionId", session},
              {"provider", "Android"},
              {"pushServiceUserId", unique("dev")},
              {"tag", "1"},
              {"locale", "1033"}}},
            {"PushApi",
             "SubscribeAppWithTagAndLocale",
             {{"appId", app},
              {"userId", user},
              {"pushServiceUserId", unique("adev")},
              {"tag", "1"},
              {"locale", "1049"},
              {"authHash", app_hash}}},
            {"PushApi", "MarkPushSmsAsDelivered", {{"sessionId", session}, {"id", std::to_string(base + n)}}},
            {"GlobalApi", "GetUtcNow", {}},
            {"ErrorsApi", "GetErrorDesc", {{"errorCode", "7"}, {"cultureCode", "1049"}}},
        };
        for (const auto& [group, op, f] : calls) {
            const auto r = call(group, op, f);
            BOOST_TEST(r.status == 200, name << " " << op << ": " << r.status << " " << r.body);
        }
        // A wrong hash, an unknown session: failures are logged too, and must not quote either.
        const auto wrong = keeper::core::expected_auth_hash(login, login_secret + "x", session);
        secrets.push_back(wrong);
        BOOST_TEST(keeper::test::int_result(call("SimpleAuthApi", "Authenticate",
                                                 {{"sessionId", session}, {"login", login}, {"authHash", wrong}})) ==
                   4);
    }

    std::this_thread::sleep_for(std::chrono::milliseconds{300});  // nginx and the log ring write after answering
    const auto dir = keeper::test::stack_state_dir() + "/log/";
    for (const std::string file : {"nginx-access.log", "nginx-error.log", "keeper.log", "postgres.log"}) {
        const auto text = read_file(dir + file);
        if (file == "nginx-access.log" || file == "keeper.log")
            BOOST_TEST(text.find("Authenticate") != std::string::npos, file);
        for (const auto& s : secrets) BOOST_TEST(text.find(s) == std::string::npos, file << " holds " << s);
    }
}

BOOST_AUTO_TEST_SUITE_END()
