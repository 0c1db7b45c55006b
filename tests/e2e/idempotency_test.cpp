// The Idempotency-Key through nginx and the worker pool as its database role (docs/api-decisions.md,
// "Idempotency-Key"): nginx hands the header to the workers, a repeat over any transport answers
// the first call's result with Idempotent-Replayed, the key with other parameters is 422 (or a
// SOAP client fault), and a bad key is refused before anything runs.
#include <boost/test/unit_test.hpp>

#include <unistd.h>

#include "stack_fixture.hpp"

using namespace keeper::test;
using keeper::core::expected_auth_hash;

namespace {

struct keyed_stack : stack_fixture {
    std::string login = unique("keyed");
    std::string session = unique("keyedsess");
    std::string purse;
    long long card = 0;

    keyed_stack() {
        add_login(login, "s");
        BOOST_TEST_REQUIRE(authenticate(session, login, expected_auth_hash(login, "s", session)) == 0);
        static long long next = 0;
        card = 7000000000LL + getpid() * 1000LL + ++next;
        purse = "Z" + std::to_string(700000000000LL + card);
        exec("INSERT INTO purses (purse, login_id) SELECT '" + purse + "', id FROM logins WHERE login = '" + login +
             "'");
        exec("INSERT INTO cards (id, login_id) SELECT " + std::to_string(card) + ", id FROM logins WHERE login = '" +
             login + "'");
    }
    fields topup(const std::string& amount) const {
        return {{"sessionId", session}, {"purseDest", purse}, {"cardId", std::to_string(card)}, {"amount", amount}};
    }
    std::string topup_json(const std::string& amount) const {
        return R"({"sessionId":")" + session + R"(","purseDest":")" + purse + R"(","cardId":)" + std::to_string(card) +
               R"(,"amount":)" + amount + "}";
    }
    std::string balance() {
        pqxx::work tx{db};
        return tx.exec1("SELECT balance FROM purses WHERE purse = '" + purse + "'")[0].as<std::string>();
    }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(e2e_idempotency, keyed_stack)

BOOST_AUTO_TEST_CASE(a_keyed_topup_runs_once_whatever_transport_repeats_it) {
    call_headers["Idempotency-Key"] = "\"" + unique("e2e-") + "\"";
    const auto first = json_call("AccountApi", "TopupPurseFromAtmCard", topup_json("12.5"));
    BOOST_TEST(first.status == 200);
    BOOST_TEST(first.body == R"({"d":0})");
    BOOST_TEST(first.header("idempotent-replayed").empty());
    const http_reply repeats[] = {
        soap11_call("AccountApi", "TopupPurseFromAtmCard", topup("12.5")),
        soap12_call("AccountApi", "TopupPurseFromAtmCard", topup("12.50")),
        get_call("AccountApi", "TopupPurseFromAtmCard", topup("12.5")),
        post_call("AccountApi", "TopupPurseFromAtmCard", topup("12.5")),
    };
    for (const auto& r : repeats) {
        BOOST_TEST(int_result(r) == 0);
        BOOST_TEST(r.header("idempotent-replayed") == "true");
        BOOST_TEST(!r.header("x-request-id").empty());
    }
    const auto again = json_call("AccountApi", "TopupPurseFromAtmCard", topup_json("12.5"));
    BOOST_TEST(again.body == R"({"d":0})");
    BOOST_TEST(again.header("idempotent-replayed") == "true");
    BOOST_TEST(balance() == "12.50");
    BOOST_TEST(count("SELECT count(*) FROM topups WHERE card_id = " + std::to_string(card)) == 1);
}

BOOST_AUTO_TEST_CASE(the_key_with_another_amount_is_refused_in_each_transports_shape) {
    call_headers["Idempotency-Key"] = unique("e2e-");
    BOOST_TEST(int_result(get_call("AccountApi", "TopupPurseFromAtmCard", topup("1"))) == 0);
    const auto j = json_call("AccountApi", "TopupPurseFromAtmCard", topup_json("2"));
    BOOST_TEST(j.status == 422);
    BOOST_TEST(j.header("jsonerror") == "true");
    BOOST_TEST(j.body.find(R"({"Message":"This Idempotency-Key was already used)") == 0u);
    BOOST_TEST(get_call("AccountApi", "TopupPurseFromAtmCard", topup("2")).status == 422);
    BOOST_TEST(post_call("AccountApi", "TopupPurseFromAtmCard", topup("2")).status == 422);
    const auto s11 = soap11_call("AccountApi", "TopupPurseFromAtmCard", topup("2"));
    BOOST_TEST(s11.status == 500);
    BOOST_TEST(s11.body.find("<faultcode>soap:Client</faultcode>") != std::string::npos);
    const auto s12 = soap12_call("AccountApi", "TopupPurseFromAtmCard", topup("2"));
    BOOST_TEST(s12.body.find("<soap:Value>soap:Sender</soap:Value>") != std::string::npos);
    BOOST_TEST(balance() == "1.00");
}

BOOST_AUTO_TEST_CASE(a_bad_key_is_a_client_error_and_changes_nothing) {
    call_headers["Idempotency-Key"] = std::string(256, 'k');
    const auto j = json_call("AccountApi", "TopupPurseFromAtmCard", topup_json("3"));
    BOOST_TEST(j.status == 400);
    BOOST_TEST(j.body.find("Idempotency-Key") != std::string::npos);
    call_headers["Idempotency-Key"] = "two words";
    BOOST_TEST(get_call("AccountApi", "TopupPurseFromAtmCard", topup("3")).status == 400);
    BOOST_TEST(balance() == "0.00");
}

BOOST_AUTO_TEST_CASE(the_wsdl_does_not_mention_the_header) {
    const auto wsdl = http_get(port, "/AccountApi.asmx?WSDL");
    BOOST_TEST(wsdl.status == 200);
    BOOST_TEST(wsdl.body.find("dempotency") == std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
