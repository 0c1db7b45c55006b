#include "keeperctl/provisioning.hpp"

#include <map>

#include "core/domain/code_hash.hpp"
#include "core/domain/formats.hpp"
#include "core/api/provider.hpp"
#include "core/api/text_util.hpp"
#include "db/secrets/secret_rotation.hpp"

namespace keeper::db {
namespace {

using core::formats::is_login;

std::string checked_login(const std::string& login) {
    if (!is_login(login)) throw provisioning_error("a login is 1-64 characters without control characters");
    return core::to_lower_utf8(login);
}

std::string checked_secret(const std::string& secret) {
    if (secret.empty() || secret.size() > 256 || !core::utf8_length(secret) || core::has_control_characters(secret)) {
        throw provisioning_error("a secret is 1-256 bytes of UTF-8 text without control characters");
    }
    return secret;
}

std::string checked_amount(const std::string& amount, const char* what) {
    if (!core::is_plain_amount(amount))
        throw provisioning_error(std::string{what} + " must be a decimal like 100 or 99.50");
    return amount;
}

std::string checked_code(const std::string& code) {
    if (!core::formats::is_code(code)) throw provisioning_error("a code is 1-64 characters without control characters");
    return code;
}

std::int64_t login_id(pqxx::work& tx, const std::string& login) {
    const auto r = tx.exec_params("SELECT id FROM logins WHERE login = $1", checked_login(login));
    if (r.empty()) throw provisioning_error("no login '" + login + "' (keeperctl add-login first)");
    return r[0][0].as<std::int64_t>();
}

// Runs f in one transaction, turning constraint violations into operator messages.
template <typename F>
std::string in_transaction(pqxx::connection_base& c, F&& f) {
    try {
        pqxx::work tx{c};
        auto report = f(tx);
        tx.commit();
        return report;
    } catch (const pqxx::unique_violation&) {
        throw provisioning_error("it exists already");
    } catch (const pqxx::foreign_key_violation&) {
        throw provisioning_error("it refers to something that does not exist");
    } catch (const pqxx::check_violation& e) {
        throw provisioning_error(std::string{"a value is out of range: "} + e.what());
    }
}

std::string stored_secret(const std::string& secret, const std::string& row, const secret_keyring* keys) {
    return keys ? keys->seal(secret, row) : secret;
}

}  // namespace

std::string add_login(pqxx::connection_base& c, const std::string& login, const std::string& secret,
                      const secret_keyring* keys) {
    const auto name = checked_login(login);
    const auto s = stored_secret(checked_secret(secret), login_secret_row(name), keys);
    return in_transaction(c, [&](pqxx::work& tx) {
        if (keys) seal_under_current_key(tx, *keys);
        const auto r = tx.exec_params1(
            "INSERT INTO logins (login, shared_secret) VALUES ($1, $2) "
            "ON CONFLICT (login) DO UPDATE SET shared_secret = EXCLUDED.shared_secret RETURNING id, (xmax = 0)",
            name, s);
        return "login " + name + (r[1].as<bool>() ? " added" : " updated") + " (id " + r[0].c_str() + ")";
    });
}

std::string add_app(pqxx::connection_base& c, const std::string& app_id, const std::string& secret,
                    const std::string& provider_name, bool enabled, const secret_keyring* keys) {
    if (!core::formats::is_app_id(app_id))
        throw provisioning_error("an appId is 1-64 characters without control characters");
    const auto p = core::provider_from_name(provider_name);
    if (!p || *p == core::provider::Undefined) {
        throw provisioning_error("provider must be a Provider name other than Undefined, e.g. Android");
    }
    const auto id = core::to_lower_utf8(app_id);
    const auto s = stored_secret(checked_secret(secret), application_secret_row(id), keys);
    return in_transaction(c, [&](pqxx::work& tx) {
        if (keys) seal_under_current_key(tx, *keys);
        tx.exec_params(
            "INSERT INTO applications (app_id, shared_secret, push_provider, enabled) VALUES ($1, $2, $3, $4) "
            "ON CONFLICT (app_id) DO UPDATE SET shared_secret = EXCLUDED.shared_secret, "
            "push_provider = EXCLUDED.push_provider, enabled = EXCLUDED.enabled",
            id, s, provider_name, enabled);
        return "application " + id + (enabled ? " enabled" : " disabled");
    });
}

std::string add_purse(pqxx::connection_base& c, const std::string& login, const std::string& purse,
                      const std::string& balance) {
    const auto number = core::formats::normalize_purse(purse);
    if (!number) throw provisioning_error("a purse is a letter of ZEURBGXCKHY and 12 digits, e.g. Z123456789012");
    const auto b = checked_amount(balance, "balance");
    return in_transaction(c, [&](pqxx::work& tx) {
        tx.exec_params("INSERT INTO purses (purse, login_id, balance) VALUES ($1, $2, $3::numeric)", *number,
                       login_id(tx, login), b);
        return "purse " + *number + " of " + login + ", balance " + b;
    });
}

std::string add_card(pqxx::connection_base& c, const std::string& login, std::int64_t card_id,
                     const std::optional<std::string>& daily_limit, bool blocked) {
    if (card_id <= 0) throw provisioning_error("a card id is positive");
    const auto limit = daily_limit ? std::optional{checked_amount(*daily_limit, "daily limit")} : std::nullopt;
    return in_transaction(c, [&](pqxx::work& tx) {
        tx.exec_params("INSERT INTO cards (id, login_id, daily_limit, blocked) VALUES ($1, $2, $3::numeric, $4)",
                       card_id, login_id(tx, login), limit, blocked);
        return "card " + std::to_string(card_id) + " of " + login + (blocked ? ", blocked" : "") +
               (limit ? ", daily limit " + *limit : ", default daily limit");
    });
}

std::string add_transfer(pqxx::connection_base& c, const std::string& login, std::int64_t tran_id,
                         const std::string& amount, const std::string& code, expiry e) {
    if (tran_id <= 0) throw provisioning_error("a transfer id is positive");
    const auto a = checked_amount(amount, "amount");
    const auto hash = core::make_code_hash(checked_code(code));
    return in_transaction(c, [&](pqxx::work& tx) {
        tx.exec_params(
            "INSERT INTO protected_transfers (id, login_id, amount, code_hash, expires_at) "
            "VALUES ($1, $2, $3::numeric, $4, now() + $5 * interval '1 second')",
            tran_id, login_id(tx, login), a, hash, e.seconds_from_now);
        return "pending transfer " + std::to_string(tran_id) + " of " + a + " to " + login + ", expires in " +
               std::to_string(e.seconds_from_now) + " s";
    });
}

std::string add_profile(pqxx::connection_base& c, const std::string& login, std::int32_t profile_id,
                        const std::string& name) {
    if (profile_id <= 0) throw provisioning_error("a profile id is positive");
    const auto n = core::formats::normalize_profile_name(name);
    if (!n) throw provisioning_error("a profile name is 1-64 characters without control characters");
    return in_transaction(c, [&](pqxx::work& tx) {
        tx.exec_params("INSERT INTO telepay_profiles (id, login_id, name) VALUES ($1, $2, $3)", profile_id,
                       login_id(tx, login), *n);
        return "telepay profile " + std::to_string(profile_id) + " '" + *n + "' of " + login;
    });
}

std::string add_task(pqxx::connection_base& c, std::int32_t profile_id, std::int32_t task_id, const std::string& code,
                     expiry e) {
    if (profile_id <= 0 || task_id <= 0) throw provisioning_error("profile and task ids are positive");
    const auto hash = core::make_code_hash(checked_code(code));
    return in_transaction(c, [&](pqxx::work& tx) {
        tx.exec_params(
            "INSERT INTO telepay_tasks (profile_id, id, code_hash, expires_at) "
            "VALUES ($1, $2, $3, now() + $4 * interval '1 second')",
            profile_id, task_id, hash, e.seconds_from_now);
        return "pending scheduler task " + std::to_string(task_id) + " of profile " + std::to_string(profile_id) +
               ", expires in " + std::to_string(e.seconds_from_now) + " s";
    });
}

std::string add_sms(pqxx::connection_base& c, const std::string& login, std::int32_t sms_id) {
    if (sms_id <= 0) throw provisioning_error("an SMS id is positive");
    return in_transaction(c, [&](pqxx::work& tx) {
        tx.exec_params("INSERT INTO push_sms (id, login_id) VALUES ($1, $2)", sms_id, login_id(tx, login));
        return "push SMS " + std::to_string(sms_id) + " to " + login;
    });
}

std::vector<std::string> list(pqxx::connection_base& c, const std::string& kind) {
    static const std::map<std::string, std::string> queries{
        {"logins", "SELECT id || '  ' || login || '  created ' || created_at FROM logins ORDER BY id"},
        {"apps",
         "SELECT app_id || '  ' || push_provider || CASE WHEN enabled THEN '  enabled' ELSE '  disabled' END FROM "
         "applications ORDER BY app_id"},
        {"purses",
         "SELECT p.purse || '  ' || l.login || '  balance ' || p.balance FROM purses p JOIN logins l ON l.id = "
         "p.login_id ORDER BY p.purse"},
        {"cards",
         "SELECT c.id || '  ' || l.login || '  limit ' || COALESCE(c.daily_limit::text, 'default') || CASE WHEN "
         "c.blocked THEN '  blocked' ELSE '' END FROM cards c JOIN logins l ON l.id = c.login_id ORDER BY c.id"},
        {"transfers",
         "SELECT t.id || '  ' || l.login || '  ' || t.amount || '  ' || t.status || '  attempts ' || t.failed_attempts "
         "|| '  expires ' || t.expires_at FROM protected_transfers t JOIN logins l ON l.id = t.login_id ORDER BY t.id"},
        {"profiles",
         "SELECT p.id || '  ' || l.login || '  ' || p.name FROM telepay_profiles p JOIN logins l ON l.id = p.login_id "
         "ORDER BY p.id"},
        {"tasks",
         "SELECT profile_id || '/' || id || '  ' || status || '  attempts ' || failed_attempts || '  expires ' || "
         "expires_at FROM telepay_tasks ORDER BY profile_id, id"},
        {"sms",
         "SELECT s.id || '  ' || l.login || '  ' || COALESCE('delivered ' || s.delivered_at, 'not delivered') FROM "
         "push_sms s JOIN logins l ON l.id = s.login_id ORDER BY s.id"},
    };
    const auto q = queries.find(kind);
    if (q == queries.end()) throw provisioning_error("nothing to list called '" + kind + "'");
    pqxx::work tx{c};
    std::vector<std::string> out;
    for (const auto& row : tx.exec(q->second)) out.push_back(row[0].c_str());
    return out;
}

}  // namespace keeper::db
