#pragma once
// The sealed secrets in the database, as a whole: the check values of secret_keys, re-sealing
// everything with the current key (keeperctl rotate-key), and the start-up check of keeper-fcgi.
#include <ostream>
#include <pqxx/pqxx>

#include "db/secrets/sealed_secrets.hpp"

namespace keeper::db {

// Records the current key's check value (once per key id). Inside the caller's transaction.
void record_current_key(pqxx::transaction_base& tx, const secret_keyring& keys);

// Seals every login and application secret that is not sealed with the current key (clear ones
// included) with it, `batch` rows per transaction, while keeper serves; then forgets the keys no
// value uses any more. Reports what it did.
void rotate_secrets(pqxx::connection_base& conn, const secret_keyring& keys, int batch, std::ostream& out);

// Throws key_error when the database holds a key id the key file lacks, or a key the file holds
// under the same id differently (its check value does not open).
void check_database_keys(pqxx::connection_base& conn, const secret_keyring& keys);

}  // namespace keeper::db
