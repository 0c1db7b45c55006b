#pragma once
// One fresh database for the whole module, plus helpers that call operations the way a worker
// does (core's pipeline on the PostgreSQL store) and set up rows with plain SQL.
#include <boost/test/unit_test.hpp>
#include <optional>
#include <pqxx/pqxx>
#include <string>
#include <utility>

#include "core/domain/auth_hash.hpp"
#include "core/pipeline/request_router.hpp"
#include "db/store/pg_store.hpp"
#include "tests/support/fresh_database.hpp"
#include "tests/support/soap_messages.hpp"

namespace keeper::test {

fresh_database& shared_database();

struct db_fixture {
    core::settings cfg;
    db::pg_store store{shared_database().url()};

    pqxx::connection& sql() { return shared_database().sql(); }

    // A name no other test uses, so tests never see each other's rows.
    static std::string unique(const std::string& prefix);

    long long add_login(const std::string& login, const std::string& secret);
    void add_app(const std::string& app_id, const std::string& secret, const std::string& provider, bool enabled);

    // Runs one HTTP GET call through the pipeline; returns the int result, or -HTTP status.
    int call(const std::string& path, const std::string& query);
    int authenticate(const std::string& session, const std::string& login, const std::string& hash);
    int authenticate_with_secret(const std::string& session, const std::string& login, const std::string& secret) {
        return authenticate(session, login, core::expected_auth_hash(login, secret, session));
    }
    int check_session(const std::string& session, const std::string& app_id);

    // A call's frame as the router builds it (core/domain/call_frame.hpp), its budget from now; and a
    // session as an operation names it, with the configured lifetime.
    core::call_frame frame(std::string request_id, std::string_view operation, bool retried = false) const {
        return {.request_id = std::move(request_id),
                .operation = operation,
                .retried = retried,
                .until = core::deadline::after(cfg.call_budget)};
    }
    core::session_ref session(std::string_view session_id) const { return {session_id, cfg.session_ttl}; }

    long long count(const std::string& query);
    std::string scalar(const std::string& query);
    void exec(const std::string& sql);

    // Any operation over HTTP GET with these fields (values percent-encoded here).
    int call_op(const std::string& group, const std::string& op, const fields& params);

    // The same over HTTP GET with an Idempotency-Key header: HTTP status, the int result (when 200)
    // and whether the answer says it is a replay.
    struct keyed_answer {
        int status = 0;
        int result = -1;
        bool replayed = false;
        std::string retry_after;  // the Retry-After header, when sent
    };
    keyed_answer call_keyed(const std::string& group, const std::string& op, const fields& params,
                            const std::string& key, core::store* through = nullptr);

    // A fresh login with an authenticated session; returns the session id.
    struct user {
        std::string login;
        std::string session;
    };
    user new_user();

    // An id no other test uses (for transfers, cards, profiles, ...), and a purse or card of u's.
    static int next_id();
    std::string purse_for(const user& u, const std::string& balance = "0");
    long long card_for(const user& u, std::optional<std::string> limit = std::nullopt, bool blocked = false);
    std::string balance(const std::string& purse) {
        return scalar("SELECT balance FROM purses WHERE purse = '" + purse + "'");
    }
};

}  // namespace keeper::test
