#include "db_fixture.hpp"

#include <unistd.h>

#include "core/wire/form_reader.hpp"
#include "keeperctl/provisioning.hpp"

namespace keeper::test {
namespace {

// Created on first use, dropped when the module ends.
struct shared_database_holder {
    fresh_database db;
};

std::string percent_encode(const std::string& s) {
    static constexpr char hex[] = "0123456789ABCDEF";
    std::string out;
    for (unsigned char c : s) {
        if (std::isalnum(c) || c == '-' || c == '_' || c == '.') {
            out += static_cast<char>(c);
        } else {
            out += '%';
            out += hex[c >> 4];
            out += hex[c & 15];
        }
    }
    return out;
}

}  // namespace

fresh_database& shared_database() {
    static shared_database_holder holder;
    return holder.db;
}

std::string db_fixture::unique(const std::string& prefix) {
    static int counter = 0;
    return prefix + std::to_string(getpid()) + "x" + std::to_string(++counter);
}

long long db_fixture::add_login(const std::string& login, const std::string& secret) {
    pqxx::work tx{sql()};
    const auto id =
        tx.exec_params1("INSERT INTO logins (login, shared_secret) VALUES ($1, $2) RETURNING id", login, secret)[0]
            .as<long long>();
    tx.commit();
    return id;
}

void db_fixture::add_app(const std::string& app_id, const std::string& secret, const std::string& provider,
                         bool enabled) {
    pqxx::work tx{sql()};
    tx.exec_params("INSERT INTO applications (app_id, shared_secret, push_provider, enabled) VALUES ($1, $2, $3, $4)",
                   app_id, secret, provider, enabled);
    tx.commit();
}

namespace {

std::string form_query(const fields& params) {
    std::string query;
    for (const auto& [name, value] : params) query += (query.empty() ? "" : "&") + name + "=" + percent_encode(value);
    return query;
}

int int_result(const std::string& body) {
    const auto open = body.find('>', body.find("<int"));
    return std::stoi(body.substr(open + 1, body.find("</int>") - open - 1));
}

}  // namespace

int db_fixture::call(const std::string& path, const std::string& query) {
    auto r = request("GET", path, query);
    r.request_id = unique("rid");
    const auto out = core::handle_request(r, store, cfg);
    if (out.response.status != 200) return -out.response.status;
    return int_result(out.response.body);
}

db_fixture::keyed_answer db_fixture::call_keyed(const std::string& group, const std::string& op, const fields& params,
                                                const std::string& key, core::store* through) {
    auto r = request("GET", "/" + group + ".asmx/" + op, form_query(params));
    r.request_id = unique("rid");
    r.idempotency_key = key;
    const auto out = core::handle_request(r, through ? *through : store, cfg);
    keyed_answer a{out.response.status, -1, false, {}};
    if (a.status == 200) a.result = int_result(out.response.body);
    for (const auto& [name, value] : out.response.headers) {
        a.replayed |= name == "Idempotent-Replayed" && value == "true";
        if (name == "Retry-After") a.retry_after = value;
    }
    return a;
}

int db_fixture::authenticate(const std::string& session, const std::string& login, const std::string& hash) {
    return call("/SimpleAuthApi.asmx/Authenticate",
                "sessionId=" + percent_encode(session) + "&login=" + percent_encode(login) + "&authHash=" + hash);
}

int db_fixture::check_session(const std::string& session, const std::string& app_id) {
    return call("/AccountApi.asmx/CheckSessionEx",
                "sessionId=" + percent_encode(session) + "&appId=" + percent_encode(app_id));
}

std::string db_fixture::scalar(const std::string& query) {
    pqxx::work tx{sql()};
    const auto f = tx.exec1(query)[0];
    return f.is_null() ? std::string{"NULL"} : f.as<std::string>();
}

void db_fixture::exec(const std::string& statement) {
    pqxx::work tx{sql()};
    tx.exec(statement);
    tx.commit();
}

int db_fixture::call_op(const std::string& group, const std::string& op, const fields& params) {
    return call("/" + group + ".asmx/" + op, form_query(params));
}

db_fixture::user db_fixture::new_user() {
    user u{unique("u"), unique("sess")};
    add_login(u.login, "secret");
    BOOST_TEST_REQUIRE(authenticate_with_secret(u.session, u.login, "secret") == 0);
    return u;
}

int db_fixture::next_id() {
    static int id = 100000 + (getpid() % 1000) * 1000;
    return ++id;
}

std::string db_fixture::purse_for(const user& u, const std::string& balance) {
    const auto purse = "Z" + std::to_string(100000000000LL + next_id());
    db::add_purse(sql(), u.login, purse, balance);
    return purse;
}

long long db_fixture::card_for(const user& u, std::optional<std::string> limit, bool blocked) {
    const long long id = next_id();
    db::add_card(sql(), u.login, id, limit, blocked);
    return id;
}

long long db_fixture::count(const std::string& query) {
    pqxx::work tx{sql()};
    return tx.exec1(query)[0].as<long long>();
}

}  // namespace keeper::test
