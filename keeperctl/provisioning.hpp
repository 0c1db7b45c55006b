#pragma once
// What other parts of the payment system would create, for keeperctl (and scripts/serve's demo
// data). Each function is one transaction; usage errors throw provisioning_error with a message
// for the operator.
#include <cstdint>
#include <optional>
#include <pqxx/pqxx>

#include "db/secrets/sealed_secrets.hpp"
#include <stdexcept>
#include <string>
#include <vector>

namespace keeper::db {

class provisioning_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct expiry {
    std::int64_t seconds_from_now = 3600;
};

// Each returns a one-line report for the operator.
// With keys, the secret is stored sealed with the current key (keeperctl always passes them);
// without, in clear (tests of the path a secret from before migration 0005 takes).
std::string add_login(pqxx::connection_base& c, const std::string& login, const std::string& secret,
                      const secret_keyring* keys = nullptr);
std::string add_app(pqxx::connection_base& c, const std::string& app_id, const std::string& secret,
                    const std::string& provider, bool enabled, const secret_keyring* keys = nullptr);
std::string add_purse(pqxx::connection_base& c, const std::string& login, const std::string& purse,
                      const std::string& balance);
std::string add_card(pqxx::connection_base& c, const std::string& login, std::int64_t card_id,
                     const std::optional<std::string>& daily_limit, bool blocked);
std::string add_transfer(pqxx::connection_base& c, const std::string& login, std::int64_t tran_id,
                         const std::string& amount, const std::string& code, expiry e);
std::string add_profile(pqxx::connection_base& c, const std::string& login, std::int32_t profile_id,
                        const std::string& name);
std::string add_task(pqxx::connection_base& c, std::int32_t profile_id, std::int32_t task_id, const std::string& code,
                     expiry e);
std::string add_sms(pqxx::connection_base& c, const std::string& login, std::int32_t sms_id);

// Rows of one kind as text lines (never secrets, hashes or codes).
std::vector<std::string> list(pqxx::connection_base& c, const std::string& kind);

}  // namespace keeper::db
