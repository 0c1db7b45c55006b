#include "db/secrets/secret_rotation.hpp"

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

namespace keeper::db {
namespace {

constexpr const char* check_word = "keeper";

// The advisory lock (class 3: logins are 1, cards 2) of the current key: rotate-key records a new
// key under it exclusively, a writer of a sealed secret takes it shared.
constexpr const char* key_turn_lock = "SELECT pg_advisory_xact_lock(3, 0)";
constexpr const char* key_turn_shared = "SELECT pg_advisory_xact_lock_shared(3, 0)";

std::string check_row(std::string_view key_id) { return "secret_keys:" + std::string{key_id}; }

struct sealed_table {
    const char* table;
    const char* key_column;
    std::string (*row)(std::string_view);
};
const sealed_table sealed_tables[] = {
    {"logins", "login", login_secret_row},
    {"applications", "app_id", application_secret_row},
};

// One batch: rows not sealed with the current key, locked (skipping rows a call holds), re-sealed.
// FOR NO KEY UPDATE: only the secret changes, so the KEY SHARE lock a call's foreign key takes on
// its login (a session, an audit row) does not make the row skipped.
long long reseal_batch(pqxx::connection_base& conn, const secret_keyring& keys, const sealed_table& t, int batch) {
    pqxx::work tx{conn};
    const std::string current = "sealed:v1:" + keys.current_id() + ":";
    const auto rows =
        tx.exec_params(std::string{"SELECT "} + t.key_column + ", shared_secret FROM " + t.table +
                           " WHERE NOT starts_with(shared_secret, $1) LIMIT $2 FOR NO KEY UPDATE SKIP LOCKED",
                       current, batch);
    // The whole batch in one UPDATE of a JSON array of {name, sealed}, not one round trip a row:
    // a million logins seal in well under a minute.
    auto batch_rows = nlohmann::json::array();
    for (const auto& r : rows) {
        const auto name = r[0].as<std::string>();
        const auto stored = r[1].as<std::string>();
        batch_rows.push_back(
            {{"name", name}, {"sealed", keys.seal(keys.open(stored, t.row(name)).value_or(stored), t.row(name))}});
    }
    if (!batch_rows.empty()) {
        tx.exec_params(std::string{"UPDATE "} + t.table +
                           " t SET shared_secret = u.sealed "
                           "FROM json_to_recordset($1::json) AS u(name text, sealed text) WHERE t." +
                           t.key_column + " = u.name",
                       batch_rows.dump());
    }
    tx.commit();
    return static_cast<long long>(rows.size());
}

// Rows of t not yet sealed with the current key, locked or not.
long long unsealed(pqxx::connection_base& conn, const secret_keyring& keys, const sealed_table& t) {
    pqxx::read_transaction tx{conn};
    return tx
        .exec_params1(std::string{"SELECT count(*) FROM "} + t.table + " WHERE NOT starts_with(shared_secret, $1)",
                      "sealed:v1:" + keys.current_id() + ":")[0]
        .as<long long>();
}

// Reseals every row of t: batch after batch, and again after a pause while a row a call had
// locked (and so was skipped) is left, for up to about ten seconds.
long long reseal_table(pqxx::connection_base& conn, const secret_keyring& keys, const sealed_table& t, int batch) {
    long long total = 0;
    for (int round = 0; round < 100; ++round) {
        for (long long n = batch; n == batch;) total += n = reseal_batch(conn, keys, t, batch);
        if (unsealed(conn, keys, t) == 0) return total;
        std::this_thread::sleep_for(std::chrono::milliseconds{100});
    }
    throw key_error(std::to_string(unsealed(conn, keys, t)) + " secret(s) of " + t.table +
                    " are still not sealed with key " + keys.current_id() +
                    " after about ten seconds (a call held them): run keeperctl rotate-key again");
}

// What is still sealed with a key: how many secrets of each table, and the first few names.
std::string sealed_with(pqxx::transaction_base& tx, std::string_view key_id) {
    std::string out;
    long long total = 0;
    for (const auto& t : sealed_tables) {
        const auto r =
            tx.exec_params1(std::string{"SELECT count(*), string_agg(name, ', ') FILTER (WHERE n <= 10) FROM "
                                        "(SELECT "} +
                                t.key_column + " AS name, row_number() OVER (ORDER BY " + t.key_column +
                                ") AS n FROM " + t.table + " WHERE starts_with(shared_secret, $1)) s",
                            "sealed:v1:" + std::string{key_id} + ":");
        const auto n = r[0].as<long long>();
        total += n;
        if (n == 0) continue;
        out += (out.empty() ? "" : "; ") + std::to_string(n) + " in " + t.table + " (" + r[1].as<std::string>() +
               (n > 10 ? ", ..." : "") + ")";
    }
    return total == 0 ? "" : out;
}

std::string lost_key_words(pqxx::transaction_base& tx, const std::string& id) {
    const auto still = sealed_with(tx, id);
    if (still.empty()) {
        return "the database lists key " + id +
               ", which the key file lacks; nothing is sealed with it any more: "
               "keeperctl forget-key lets go of it";
    }
    return "the database has secrets sealed with key " + id + ", which the key file lacks: " + still +
           " (docs/operations.md, \"The secret key\": a lost key)";
}

}  // namespace

void record_current_key(pqxx::transaction_base& tx, const secret_keyring& keys) {
    tx.exec_params("INSERT INTO secret_keys (key_id, check_value) VALUES ($1, $2) ON CONFLICT (key_id) DO NOTHING",
                   keys.current_id(), keys.seal(check_word, check_row(keys.current_id())));
}

void seal_under_current_key(pqxx::transaction_base& tx, const secret_keyring& keys) {
    tx.exec(key_turn_shared);
    // The operator replaces the key file before rotate-key; a command that read the old file
    // finds it changed here, under the lock, and stops before it seals with the old key.
    if (!keys.path().empty() && secret_keyring::load(keys.path()).current_id() != keys.current_id()) {
        throw key_error(
            "the key file now names another key first than when this command read it (a rotation): "
            "run the command again");
    }
    // A key the file lacks, recorded after the file's current key: a rotation under way.
    const auto newer = tx.exec_params(
        "SELECT n.key_id FROM secret_keys n JOIN secret_keys mine ON mine.key_id = $1 "
        "WHERE n.created_at > mine.created_at ORDER BY n.created_at DESC",
        keys.current_id());
    for (const auto& r : newer) {
        if (!keys.has(r[0].c_str())) {
            throw key_error("the database records key " + std::string{r[0].c_str()} + ", newer than key " +
                            keys.current_id() + " and not in the key file (a rotation): run the command again");
        }
    }
    record_current_key(tx, keys);
}

void rotate_secrets(pqxx::connection_base& conn, const secret_keyring& keys, int batch, std::ostream& out) {
    {
        // Every writer that sealed with an older key has committed (its row is re-sealed below),
        // and every later one sees this key recorded (and is refused if its file lacks it).
        pqxx::work tx{conn};
        tx.exec(key_turn_lock);
        record_current_key(tx, keys);
        tx.commit();
    }
    check_database_keys(conn, keys);
    for (const auto& t : sealed_tables) {
        const long long total = reseal_table(conn, keys, t, batch);
        out << t.table << ": " << total << " secret(s) sealed with key " << keys.current_id() << "\n";
    }
    pqxx::work tx{conn};
    const auto gone = tx.exec_params(
        "DELETE FROM secret_keys k WHERE key_id <> $1 "
        "AND NOT EXISTS (SELECT 1 FROM logins WHERE starts_with(shared_secret, 'sealed:v1:' || k.key_id || ':')) "
        "AND NOT EXISTS (SELECT 1 FROM applications WHERE starts_with(shared_secret, 'sealed:v1:' || k.key_id || ':')) "
        "RETURNING key_id",
        keys.current_id());
    tx.commit();
    for (const auto& r : gone)
        out << "key " << r[0].c_str()
            << " seals nothing now: remove it from the key file once key_retention_hours have "
               "passed (Idempotency-Keys recorded under it still replay until then)\n";
}

void check_database_keys(pqxx::connection_base& conn, const secret_keyring& keys) {
    pqxx::read_transaction tx{conn};
    for (const auto& r : tx.exec("SELECT key_id, check_value FROM secret_keys")) {
        const auto id = r[0].as<std::string>();
        if (!keys.has(id)) throw key_error(lost_key_words(tx, id));
        std::optional<std::string> opened;
        try {
            opened = keys.open(r[1].as<std::string>(), check_row(id));
        } catch (const key_error&) {
            // reported below, in words about the key file
        }
        if (opened != check_word) {
            throw key_error("key " + id + " of the key file is not the key the database was sealed with");
        }
    }
}

int forget_lost_keys(pqxx::connection_base& conn, const secret_keyring& keys, std::ostream& out) {
    pqxx::work tx{conn};
    // Whatever seals a secret records its key in the same transaction (record_current_key), and
    // that insert waits for this lock: a secret sealed meanwhile with a key forgotten here puts
    // the key's row back when it commits, so no sealed secret is ever left without its check.
    tx.exec0("LOCK TABLE secret_keys IN SHARE ROW EXCLUSIVE MODE");
    std::vector<std::string> lost;
    for (const auto& r : tx.exec("SELECT key_id FROM secret_keys ORDER BY key_id")) {
        if (!keys.has(r[0].c_str())) lost.push_back(r[0].as<std::string>());
    }
    std::string refused;
    for (const auto& id : lost) {
        const auto still = sealed_with(tx, id);
        if (!still.empty()) refused += "\n  key " + id + ": " + still;
    }
    if (!refused.empty()) {
        throw key_error("secrets are still sealed with a key the key file lacks:" + refused +
                        "\ngive each a new secret (keeperctl add-login LOGIN -, keeperctl add-app APPID - PROVIDER), "
                        "then run forget-key again");
    }
    for (const auto& id : lost) {
        tx.exec_params0("DELETE FROM secret_keys WHERE key_id = $1", id);
        out << "key " << id << " forgotten: nothing was sealed with it\n";
    }
    tx.commit();
    if (lost.empty()) out << "the key file holds every key the database lists\n";
    return static_cast<int>(lost.size());
}

}  // namespace keeper::db
