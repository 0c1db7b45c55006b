#pragma once
// The running stack (nginx → pool → PostgreSQL) as scripts/test started it, with helpers to
// provision rows in its database and to call it over each transport.
#include <pqxx/pqxx>
#include <map>
#include <string>

#include "core/domain/auth_hash.hpp"
#include "tests/support/http_client.hpp"
#include "tests/support/soap_messages.hpp"
#include "tests/support/test_env.hpp"

namespace keeper::test {

struct stack_fixture {
    int port = stack_port();
    pqxx::connection db{stack_database_url()};
    // Sent with every call the helpers below make (an Idempotency-Key, say).
    std::map<std::string, std::string> call_headers;

    static std::string unique(const std::string& prefix);

    void exec(const std::string& sql);
    long long count(const std::string& sql);
    void add_login(const std::string& login, const std::string& secret);
    void add_app(const std::string& app_id, const std::string& secret, bool enabled);

    http_reply soap11_call(const std::string& group, const std::string& op, const fields& params,
                           bool with_action = true);
    http_reply soap12_call(const std::string& group, const std::string& op, const fields& params,
                           bool with_action = true);
    http_reply get_call(const std::string& group, const std::string& op, const fields& params);
    http_reply post_call(const std::string& group, const std::string& op, const fields& params);
    // JSON as ASP.NET AJAX sends it: the body is the JSON text given.
    http_reply json_call(const std::string& group, const std::string& op, const std::string& json);

    // Authenticate over HTTP GET; returns the int result.
    int authenticate(const std::string& session, const std::string& login, const std::string& hash);
    int check_session(const std::string& session, const std::string& app_id);

private:
    std::map<std::string, std::string> with(std::map<std::string, std::string> headers) const;
};

// The int inside <int ...>N</int> or <XResult>N</XResult>.
int int_result(const http_reply& reply);

}  // namespace keeper::test
