#pragma once
// The sealed secrets in the database, as a whole: the check values of secret_keys, re-sealing
// everything with the current key (keeperctl rotate-key), and the start-up check of keeper-fcgi.
#include <ostream>
#include <pqxx/pqxx>

#include "db/secrets/sealed_secrets.hpp"

namespace keeper::db {

// Records the current key's check value (once per key id). Inside the caller's transaction.
void record_current_key(pqxx::transaction_base& tx, const secret_keyring& keys);

// First in a transaction that writes a sealed secret (keeperctl add-login, add-app): records the
// key file's current key, and throws key_error when a rotation began since the command read its
// key file (the file, read again, names another key first; or the database records a newer key
// the file lacks). Its lock is shared with the other writers and exclusive with rotate-key's
// recording of a new key, so a secret sealed with the old key is either committed before the
// rotation starts (and re-sealed by it) or refused.
void seal_under_current_key(pqxx::transaction_base& tx, const secret_keyring& keys);

// Seals every login and application secret that is not sealed with the current key (clear ones
// included) with it, `batch` rows per transaction, while keeper serves; then forgets the keys no
// value uses any more. Reports what it did. Throws when a row stays unsealed (a call held it for
// about ten seconds): run it again.
void rotate_secrets(pqxx::connection_base& conn, const secret_keyring& keys, int batch, std::ostream& out);

// Throws key_error when the database holds a key id the key file lacks, or a key the file holds
// under the same id differently (its check value does not open). The first names what is still
// sealed with the missing key, or says that nothing is (then `keeperctl forget-key` lets go of it).
void check_database_keys(pqxx::connection_base& conn, const secret_keyring& keys);

// The way out of a lost key: forgets every key the database lists and the key file lacks, once
// no secret is sealed with it. Throws key_error naming what still is (each must be given a new
// secret first). Reports what it forgot; returns how many.
int forget_lost_keys(pqxx::connection_base& conn, const secret_keyring& keys, std::ostream& out);

}  // namespace keeper::db
