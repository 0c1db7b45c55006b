#include "stack_fixture.hpp"

#include <unistd.h>

#include <boost/test/unit_test.hpp>

namespace keeper::test {

std::string stack_fixture::unique(const std::string& prefix) {
    static int counter = 0;
    return prefix + std::to_string(getpid()) + "x" + std::to_string(++counter);
}

void stack_fixture::exec(const std::string& sql) {
    pqxx::work tx{db};
    tx.exec(sql);
    tx.commit();
}

long long stack_fixture::count(const std::string& sql) {
    pqxx::work tx{db};
    return tx.exec1(sql)[0].as<long long>();
}

void stack_fixture::add_login(const std::string& login, const std::string& secret) {
    pqxx::work tx{db};
    tx.exec_params("INSERT INTO logins (login, shared_secret) VALUES ($1, $2)", login, secret);
    tx.commit();
}

void stack_fixture::add_app(const std::string& app_id, const std::string& secret, bool enabled) {
    pqxx::work tx{db};
    tx.exec_params(
        "INSERT INTO applications (app_id, shared_secret, push_provider, enabled) VALUES ($1, $2, 'Android', $3)",
        app_id, secret, enabled);
    tx.commit();
}

std::map<std::string, std::string> stack_fixture::with(std::map<std::string, std::string> headers) const {
    headers.insert(call_headers.begin(), call_headers.end());
    return headers;
}

http_reply stack_fixture::soap11_call(const std::string& group, const std::string& op, const fields& params,
                                      bool with_action) {
    auto headers = with({{"Content-Type", "text/xml; charset=utf-8"}});
    if (with_action) headers["SOAPAction"] = "\"http://tempuri.org/" + op + "\"";
    return http_request(port, "POST", "/" + group + ".asmx", headers, soap11(op, params));
}

http_reply stack_fixture::soap12_call(const std::string& group, const std::string& op, const fields& params,
                                      bool with_action) {
    const std::string type = "application/soap+xml; charset=utf-8" +
                             (with_action ? "; action=\"http://tempuri.org/" + op + "\"" : std::string{});
    return http_request(port, "POST", "/" + group + ".asmx", with({{"Content-Type", type}}), soap12(op, params));
}

http_reply stack_fixture::get_call(const std::string& group, const std::string& op, const fields& params) {
    const auto query = form(params);
    return http_request(port, "GET", "/" + group + ".asmx/" + op + (query.empty() ? "" : "?" + query), with({}));
}

http_reply stack_fixture::post_call(const std::string& group, const std::string& op, const fields& params) {
    return http_request(port, "POST", "/" + group + ".asmx/" + op,
                        with({{"Content-Type", "application/x-www-form-urlencoded"}}), form(params));
}

http_reply stack_fixture::json_call(const std::string& group, const std::string& op, const std::string& json) {
    return http_request(port, "POST", "/" + group + ".asmx/" + op,
                        with({{"Content-Type", "application/json; charset=utf-8"}}), json);
}

int stack_fixture::authenticate(const std::string& session, const std::string& login, const std::string& hash) {
    return int_result(
        get_call("SimpleAuthApi", "Authenticate", {{"sessionId", session}, {"login", login}, {"authHash", hash}}));
}

int stack_fixture::check_session(const std::string& session, const std::string& app_id) {
    return int_result(get_call("AccountApi", "CheckSessionEx", {{"sessionId", session}, {"appId", app_id}}));
}

int int_result(const http_reply& reply) {
    BOOST_TEST_REQUIRE(reply.status == 200, "HTTP " << reply.status << ": " << reply.body);
    const auto& b = reply.body;
    const auto close = b.find("</int>") != std::string::npos ? b.find("</int>") : b.find("</", b.find("Result>"));
    const auto open = b.rfind('>', close);
    return std::stoi(b.substr(open + 1, close - open - 1));
}

}  // namespace keeper::test
