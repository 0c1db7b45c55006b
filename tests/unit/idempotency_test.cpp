// The Idempotency-Key without a database (docs/api-decisions.md, "Idempotency-Key"): the header's
// syntax, the fingerprint that tells a repeat from another call, and how the pipeline hands the
// key to the store and answers a replay or a reused key on every transport.
#include <boost/test/unit_test.hpp>

#include <functional>
#include <set>

#include "tests/support/printers.hpp"

#include "core/domain/call_fingerprint.hpp"
#include "core/domain/operation_table.hpp"
#include "core/pipeline/request_router.hpp"
#include "core/domain/idempotency_key.hpp"
#include "tests/support/soap_messages.hpp"
#include "tests/support/unreachable_store.hpp"

using namespace keeper::core;
namespace t = keeper::test;

namespace {

// SetAccountPermits answers what `answer` says and keeps the tag it was given; every other call
// finds the database down.
struct scripted_store : t::unreachable_store {
    std::function<store_result(const call_frame&)> answer = [](const call_frame&) { return result_code::ok; };
    std::string key, fingerprint;
    int writes = 0;

    store_result set_account_permits(const call_frame& tag, const session_ref&, bool, bool, bool) override {
        ++writes;
        key = tag.idempotency_key;
        fingerprint = tag.fingerprint;
        return answer(tag);
    }
};

const std::string session = "0123456789abcdef0123456789abcdef";
const std::string permits_query =
    "sessionId=" + session + "&acceptPayments=true&acceptInvoices=false&acceptMessages=true";
const std::string permits_json =
    R"({"sessionId":")" + session + R"(","acceptPayments":true,"acceptInvoices":false,"acceptMessages":true})";

struct keyed_fixture {
    settings cfg;
    scripted_store db;

    handled_request send(std::string method, std::string path, std::string query, std::string type, std::string body,
                         std::optional<std::string> key, std::optional<std::string> action = std::nullopt) {
        auto r = t::request(std::move(method), std::move(path), std::move(query), std::move(type), std::move(body));
        r.soap_action = std::move(action);
        r.idempotency_key = std::move(key);
        return handle_request(r, db, cfg);
    }
    handled_request get(const std::optional<std::string>& key) {
        return send("GET", "/AccountApi.asmx/SetAccountPermits", permits_query, "", "", key);
    }
    handled_request json(const std::optional<std::string>& key) {
        return send("POST", "/AccountApi.asmx/SetAccountPermits", "", "application/json; charset=utf-8", permits_json,
                    key);
    }
    handled_request form(const std::optional<std::string>& key) {
        return send("POST", "/AccountApi.asmx/SetAccountPermits", "", "application/x-www-form-urlencoded",
                    permits_query, key);
    }
    handled_request soap11(const std::optional<std::string>& key) {
        return send("POST", "/AccountApi.asmx", "", "text/xml; charset=utf-8",
                    t::soap11("SetAccountPermits", {{"sessionId", session},
                                                    {"acceptPayments", "true"},
                                                    {"acceptInvoices", "false"},
                                                    {"acceptMessages", "true"}}),
                    key, "\"http://tempuri.org/SetAccountPermits\"");
    }
    handled_request soap12(const std::optional<std::string>& key) {
        return send("POST", "/AccountApi.asmx", "", "application/soap+xml; charset=utf-8",
                    t::soap12("SetAccountPermits", {{"sessionId", session},
                                                    {"acceptPayments", "true"},
                                                    {"acceptInvoices", "false"},
                                                    {"acceptMessages", "true"}}),
                    key);
    }
    static std::string header(const handled_request& h, const std::string& name) {
        for (const auto& [n, v] : h.response.headers)
            if (n == name) return v;
        return "(none)";
    }
};

decoded_call permits_call(bool payments) {
    return {find_operation(api_group::account, "SetAccountPermits"), {session, payments, false, true}};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(idempotency_key_header)

BOOST_AUTO_TEST_CASE(a_key_is_bare_or_a_structured_field_string_of_1_to_255_visible_characters) {
    BOOST_TEST(!read_idempotency_key(std::nullopt).has_value());
    BOOST_TEST(*read_idempotency_key("8e03978e-40d5-43e8-bc93-6894a57f9324") == "8e03978e-40d5-43e8-bc93-6894a57f9324");
    BOOST_TEST(*read_idempotency_key("\"8e03978e\"") == "8e03978e");
    BOOST_TEST(*read_idempotency_key(R"("a\"b\\c")") == R"(a"b\c)");
    BOOST_TEST(*read_idempotency_key(" padded\t") == "padded");
    BOOST_TEST(*read_idempotency_key(std::string(255, 'k')) == std::string(255, 'k'));
    BOOST_TEST(*read_idempotency_key("!~{}") == "!~{}");
}

BOOST_AUTO_TEST_CASE(anything_else_is_a_client_fault) {
    for (const std::string& bad : {std::string{}, std::string{"\"\""}, std::string(256, 'k'), std::string{"a b"},
                                   std::string{"\"a b\""}, std::string{"tab\there"}, std::string{"ключ"},
                                   std::string{"nul\0x", 5}, std::string{R"("bad\escape")"}, std::string{R"("a"b")"}}) {
        BOOST_TEST_CONTEXT(bad) {
            try {
                (void)read_idempotency_key(bad);
                BOOST_FAIL("accepted");
            } catch (const fault& f) {
                BOOST_TEST((f.kind() == fault_kind::client));
                BOOST_TEST(std::string{f.what()}.find("1 to 255 visible ASCII") != std::string::npos);
            }
        }
    }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(call_fingerprints)

BOOST_AUTO_TEST_CASE(the_same_call_has_one_fingerprint_and_any_other_argument_another) {
    const auto a = call_fingerprint(permits_call(true));
    BOOST_TEST(a.size() == 64u);
    BOOST_TEST(a.find_first_not_of("0123456789abcdef") == std::string::npos);
    BOOST_TEST(call_fingerprint(permits_call(true)) == a);
    BOOST_TEST(call_fingerprint(permits_call(false)) != a);
}

BOOST_AUTO_TEST_CASE(amounts_compare_by_value_and_fields_cannot_run_together) {
    const auto* topup = find_operation(api_group::account, "TopupPurseFromAtmCard");
    const auto with = [&](std::string purse, double amount) {
        return call_fingerprint({topup, {session, std::move(purse), std::int64_t{7}, amount}});
    };
    BOOST_TEST(with("Z1", 10.0) == with("Z1", 10.000));
    BOOST_TEST(with("Z1", 10.0) != with("Z1", 10.01));
    const auto* rename = find_operation(api_group::telepay, "RenameTelepayProfile");
    BOOST_TEST(call_fingerprint({rename, {std::string{"ab"}, std::int32_t{1}, std::string{"c"}}}) !=
               call_fingerprint({rename, {std::string{"a"}, std::int32_t{1}, std::string{"bc"}}}));
}

BOOST_AUTO_TEST_CASE(the_credentials_are_no_part_of_the_call_but_the_session_authenticate_binds_is) {
    const auto* topup = find_operation(api_group::account, "TopupPurseFromAtmCard");
    const auto with = [&](std::string session_id, std::string purse, double amount) {
        return call_fingerprint({topup, {std::move(session_id), std::move(purse), std::int64_t{7}, amount}});
    };
    BOOST_TEST(with("session-a", "Z123456789012", 10.5) == with("session-b", "z123456789012", 10.50));
    BOOST_TEST(with("session-a", "Z123456789012", 10.5) != with("session-a", "Z123456789013", 10.5));
    const auto* auth = find_operation(api_group::simple_auth, "Authenticate");
    const auto login = [&](std::string session_id, std::string name, std::string hash) {
        return call_fingerprint({auth, {std::move(session_id), std::move(name), std::move(hash)}});
    };
    BOOST_TEST(login("s1", "Alice", std::string(32, 'a')) == login("s1", "alice", std::string(32, 'b')));
    BOOST_TEST(login("s1", "alice", std::string(32, 'a')) != login("s1", "bob", std::string(32, 'a')));
    // The session Authenticate binds is what it writes: another session is another call.
    BOOST_TEST(login("s1", "alice", std::string(32, 'a')) != login("s2", "alice", std::string(32, 'a')));
}

BOOST_AUTO_TEST_CASE(another_operation_with_the_same_arguments_is_another_call) {
    const auto* account = find_operation(api_group::account, "CheckSessionEx");
    const auto* other = find_operation(api_group::telepay, "RenameTelepayProfile");
    BOOST_TEST(call_fingerprint({account, {session, std::string{"x"}}}) !=
               call_fingerprint({other, {session, std::string{"x"}}}));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_FIXTURE_TEST_SUITE(keyed_calls, keyed_fixture)

BOOST_AUTO_TEST_CASE(every_transport_hands_the_key_and_one_fingerprint_to_the_store) {
    std::set<std::string> fingerprints;
    for (const auto& call : {&keyed_fixture::get, &keyed_fixture::json, &keyed_fixture::form, &keyed_fixture::soap11,
                             &keyed_fixture::soap12}) {
        const auto r = (this->*call)("\"k-1\"");
        BOOST_TEST(r.response.status == 200);
        BOOST_TEST(db.key == "k-1");
        fingerprints.insert(db.fingerprint);
        BOOST_TEST(header(r, "Idempotent-Replayed") == "(none)");
    }
    BOOST_TEST(fingerprints.size() == 1u);
    BOOST_TEST(*fingerprints.begin() == call_fingerprint(permits_call(true)));
    get(std::nullopt);
    BOOST_TEST(db.key.empty());
    BOOST_TEST(db.fingerprint.empty());
}

BOOST_AUTO_TEST_CASE(a_replay_answers_the_recorded_result_and_says_so) {
    db.answer = [](const call_frame&) { return store_result{result_code::limit_exceeded, true}; };
    for (const auto& call : {&keyed_fixture::get, &keyed_fixture::json, &keyed_fixture::form, &keyed_fixture::soap11,
                             &keyed_fixture::soap12}) {
        const auto r = (this->*call)("k-2");
        BOOST_TEST(r.response.status == 200);
        BOOST_TEST(header(r, "Idempotent-Replayed") == "true");
        BOOST_TEST((r.log.replayed && r.log.result == 9));
    }
    BOOST_TEST(json("k-2").response.body == R"({"d":9})");
}

BOOST_AUTO_TEST_CASE(a_reused_key_is_422_where_http_status_carries_it_and_a_client_fault_in_soap) {
    db.answer = [](const call_frame&) -> store_result { throw key_reused(); };
    const auto j = json("k-3");
    BOOST_TEST(j.response.status == 422);
    BOOST_TEST(header(j, "jsonerror") == "true");
    BOOST_TEST(j.response.body.starts_with(R"({"Message":"This Idempotency-Key was already used)"));
    for (const auto& r : {get("k-3"), form("k-3")}) {
        BOOST_TEST(r.response.status == 422);
        BOOST_TEST(r.response.content_type == "text/plain; charset=utf-8");
    }
    const auto s11 = soap11("k-3");
    BOOST_TEST(s11.response.status == 500);
    BOOST_TEST(s11.response.body.find("<faultcode>soap:Client</faultcode>") != std::string::npos);
    const auto s12 = soap12("k-3");
    BOOST_TEST(s12.response.body.find("soap:Sender") != std::string::npos);
    BOOST_TEST((s12.log.fault == fault_kind::key_reused));
}

BOOST_AUTO_TEST_CASE(a_keyed_call_still_in_flight_is_409_with_retry_after_and_a_server_fault_in_soap) {
    db.answer = [](const call_frame&) -> store_result { throw key_in_flight(); };
    const auto j = json("k-4");
    BOOST_TEST(j.response.status == 409);
    BOOST_TEST(header(j, "jsonerror") == "true");
    BOOST_TEST(header(j, "Retry-After") == "1");
    BOOST_TEST(j.response.body.starts_with(R"({"Message":"A call with this Idempotency-Key is still running)"));
    for (const auto& r : {get("k-4"), form("k-4")}) {
        BOOST_TEST(r.response.status == 409);
        BOOST_TEST(header(r, "Retry-After") == "1");
    }
    const auto s11 = soap11("k-4");
    BOOST_TEST(s11.response.status == 500);
    BOOST_TEST(s11.response.body.find("<faultcode>soap:Server</faultcode>") != std::string::npos);
    BOOST_TEST(header(s11, "Retry-After") == "1");
    const auto s12 = soap12("k-4");
    BOOST_TEST(s12.response.body.find("soap:Receiver") != std::string::npos);
    BOOST_TEST((s12.log.fault == fault_kind::key_in_flight));
}

BOOST_AUTO_TEST_CASE(a_bad_key_on_a_write_is_refused_before_the_store_is_asked) {
    const auto j = json("has space");
    BOOST_TEST(j.response.status == 400);
    BOOST_TEST(j.response.body.find("Idempotency-Key") != std::string::npos);
    BOOST_TEST(soap11(std::string(256, 'k')).response.body.find("soap:Client") != std::string::npos);
    BOOST_TEST(db.writes == 0);
}

BOOST_AUTO_TEST_CASE(a_read_ignores_the_header) {
    const auto r = send("GET", "/ErrorsApi.asmx/GetErrorDesc", "errorCode=4&cultureCode=1033", "", "", "has space");
    BOOST_TEST(r.response.status == 200);
    BOOST_TEST(header(r, "Idempotent-Replayed") == "(none)");
}

BOOST_AUTO_TEST_CASE(the_operation_table_marks_exactly_the_calls_that_change_something) {
    std::set<std::string_view> reads;
    for (const auto& op : operations()) {
        if (op.effect == call_effect::reads) reads.insert(op.name);
    }
    BOOST_TEST((reads == std::set<std::string_view>{"CheckSessionEx", "GetUtcNow", "GetErrorDesc"}));
}

BOOST_AUTO_TEST_SUITE_END()
