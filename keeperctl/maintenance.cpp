#include "keeperctl/maintenance.hpp"

#include <set>
#include <string>

#include "db/schema/partition_indexes.hpp"

namespace keeper::db {
namespace {

// Any constant will do; it differs from the migrator's.
constexpr long long maintain_lock_key = 0x6b656570'65720002LL;
// A step that would wait longer than this for a lock a call holds gives up (and is retried on the
// next run) rather than queue the calls behind its own lock request.
constexpr const char* step_lock_timeout = "SET lock_timeout = '2s'";
// partition_data_time moves one month a batch; a run moves at most this many.
constexpr int max_default_batches = 120;

struct history_table {
    const char* name;
    int core::settings::*retention_months;
};
constexpr history_table history[] = {
    {"audit_log", &core::settings::audit_retention_months},
    {"topups", &core::settings::topup_retention_months},
};

// Session-level advisory lock, held for the run (and released with the connection anyway).
class run_lock {
public:
    explicit run_lock(pqxx::connection_base& conn) : m_conn(conn) {
        m_held =
            pqxx::nontransaction{conn}.exec_params1("SELECT pg_try_advisory_lock($1)", maintain_lock_key)[0].as<bool>();
    }
    ~run_lock() {
        if (!m_held) return;
        try {
            pqxx::nontransaction{m_conn}.exec_params("SELECT pg_advisory_unlock($1)", maintain_lock_key);
        } catch (...) {
            // The lock dies with the connection.
        }
    }
    run_lock(const run_lock&) = delete;
    run_lock& operator=(const run_lock&) = delete;
    bool held() const { return m_held; }

private:
    pqxx::connection_base& m_conn;
    bool m_held = false;
};

std::string qualified(pqxx::connection_base& conn, const char* table) {
    return pqxx::nontransaction{conn}.exec1("SELECT current_schema()")[0].as<std::string>() + "." + table;
}

std::set<std::string> partitions(pqxx::connection_base& conn, const std::string& parent) {
    std::set<std::string> out;
    pqxx::nontransaction tx{conn};
    for (const auto& row : tx.exec_params("SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid "
                                          "WHERE i.inhparent = $1::regclass",
                                          parent)) {
        out.insert(row[0].as<std::string>());
    }
    return out;
}

// The configuration is the source of truth for retention: part_config follows it on every run.
void configure(pqxx::connection_base& conn, const std::string& parent, int months, bool detach_only) {
    pqxx::work tx{conn};
    const auto r = tx.exec_params(
        "UPDATE partman.part_config SET retention = $2, retention_keep_table = $3, retention_keep_index = $3, "
        "infinite_time_partitions = true WHERE parent_table = $1",
        parent, std::to_string(months) + " months", detach_only);
    if (r.affected_rows() != 1)
        throw std::runtime_error(parent + " is not a pg_partman partition set (keeperctl migrate first)");
    tx.commit();
}

// Rows in the default partition block pg_partman from creating the partition they belong to.
long long empty_default(pqxx::connection_base& conn, const std::string& parent) {
    long long moved = 0;
    for (int i = 0; i < max_default_batches; ++i) {
        pqxx::work tx{conn};
        tx.exec(step_lock_timeout);
        const auto n =
            tx.exec_params1("SELECT partman.partition_data_time($1, p_batch_count := 1, p_lock_wait := 2)", parent)[0]
                .as<long long>(0);
        tx.commit();
        if (n == 0) break;
        moved += n;
    }
    return moved;
}

void run_partman(pqxx::connection_base& conn, const std::string& parent) {
    pqxx::work tx{conn};
    tx.exec(step_lock_timeout);
    tx.exec_params("SELECT partman.run_maintenance($1, p_jobmon := false)", parent);
    tx.commit();
}

std::string names(const std::set<std::string>& a, const std::set<std::string>& minus) {
    std::string out;
    for (const auto& n : a) {
        if (!minus.count(n)) out += (out.empty() ? "" : " ") + n;
    }
    return out;
}

// pg_partman's default partition of `parent` ("schema.table") is "schema.table_default".
long long default_rows(pqxx::connection_base& conn, const std::string& parent) {
    const auto dot = parent.find('.');
    pqxx::nontransaction tx{conn};
    return tx
        .exec1("SELECT count(*) FROM " + tx.quote_name(parent.substr(0, dot)) + "." +
               tx.quote_name(parent.substr(dot + 1) + "_default"))[0]
        .as<long long>();
}

void maintain_history(pqxx::connection_base& conn, const core::settings& cfg, const history_table& t, std::ostream& out,
                      maintain_outcome* outcome) {
    const auto parent = qualified(conn, t.name);
    configure(conn, parent, cfg.*t.retention_months, cfg.retention_detach_only);
    const auto moved = empty_default(conn, parent);
    if (moved) out << t.name << ": moved " << moved << " row(s) out of the default partition\n";
    if (outcome) outcome->default_rows[t.name] = moved + default_rows(conn, parent);
    const auto before = partitions(conn, parent);
    run_partman(conn, parent);
    const auto after = partitions(conn, parent);
    const auto created = names(after, before);
    const auto removed = names(before, after);
    out << t.name << ": " << after.size() << " partitions; created " << (created.empty() ? "none" : created) << "; "
        << (cfg.retention_detach_only ? "detached " : "dropped ") << (removed.empty() ? "none" : removed)
        << " (retention " << cfg.*t.retention_months << " months)\n";
}

// Deletes rows matching `condition` (with $1 = an age in seconds) in batches of their own
// transaction each; returns how many.
long long purge(pqxx::connection_base& conn, const char* table, const char* condition, long long age_seconds,
                int batch) {
    const std::string where = std::string{condition} + " < now() - make_interval(secs => $1)";
    const std::string sql = std::string{"DELETE FROM "} + table + " WHERE ctid = ANY(ARRAY(SELECT ctid FROM " + table +
                            " WHERE " + where + " LIMIT $2)) AND " + where;
    long long deleted = 0;
    for (;;) {
        pqxx::work tx{conn};
        tx.exec(step_lock_timeout);
        const auto n = tx.exec_params(sql, static_cast<double>(age_seconds), batch).affected_rows();
        tx.commit();
        deleted += static_cast<long long>(n);
        if (n < static_cast<std::size_t>(batch)) return deleted;
    }
}

void purge_sessions(pqxx::connection_base& conn, const core::settings& cfg, std::ostream& out) {
    const long long age = cfg.session_ttl.count() + cfg.session_linger_days * 86400LL;
    const auto n = purge(conn, "sessions", "authenticated_at", age, cfg.purge_batch_rows);
    out << "sessions: deleted " << n << " expired more than " << cfg.session_linger_days << " days ago\n";
}

void purge_recent_topups(pqxx::connection_base& conn, const core::settings& cfg, std::ostream& out) {
    const auto n = purge(conn, "card_recent_topups", "created_at", 25 * 3600, cfg.purge_batch_rows);
    out << "card_recent_topups: deleted " << n << " older than 25 hours\n";
}

void purge_retried_calls(pqxx::connection_base& conn, const core::settings& cfg, std::ostream& out) {
    const auto n = purge(conn, "retried_calls", "at", 25 * 3600, cfg.purge_batch_rows);
    out << "retried_calls: deleted " << n << " older than 25 hours\n";
}

// A decision outlives every attempt of its call: each begins before its deadline, minutes at most.
void purge_decided_calls(pqxx::connection_base& conn, const core::settings& cfg, std::ostream& out) {
    const auto n = purge(conn, "decided_calls", "at", 25 * 3600, cfg.purge_batch_rows);
    out << "decided_calls: deleted " << n << " older than 25 hours\n";
}

void purge_auth_failures(pqxx::connection_base& conn, const core::settings& cfg, std::ostream& out) {
    const auto n = purge(conn, "auth_failures", "failed_at", cfg.auth_failure_window.count(), cfg.purge_batch_rows);
    out << "auth_failures: deleted " << n << " older than the " << cfg.auth_failure_window.count() << " s window\n";
}

void purge_app_auth_failures(pqxx::connection_base& conn, const core::settings& cfg, std::ostream& out) {
    const auto window = cfg.app_auth_failure_window.count();
    const auto n = purge(conn, "app_auth_failures", "failed_at", window, cfg.purge_batch_rows);
    out << "app_auth_failures: deleted " << n << " older than the " << window << " s window\n";
}

void purge_idempotency_keys(pqxx::connection_base& conn, const core::settings& cfg, std::ostream& out) {
    const auto n =
        purge(conn, "idempotency_keys", "created_at", cfg.key_retention_hours * 3600LL, cfg.purge_batch_rows);
    out << "idempotency_keys: deleted " << n << " older than " << cfg.key_retention_hours << " hours\n";
}

// Runs one step; a failure is reported and the run goes on with the next.
template <typename Step>
bool run_step(const char* what, std::ostream& out, Step&& step) {
    try {
        step();
        return true;
    } catch (const std::exception& e) {
        out << what << ": FAILED: " << e.what() << "\n";
        return false;
    }
}

}  // namespace

int maintain(pqxx::connection_base& conn, const core::settings& cfg, std::ostream& out, maintain_outcome* outcome) {
    const run_lock lock{conn};
    if (!lock.held()) {
        out << "another keeperctl maintain is running; nothing done\n";
        if (outcome) outcome->succeeded = true;
        return 0;
    }
    bool ok = true;
    ok &= run_step("indexes", out, [&] { build_partition_indexes(conn, out); });
    for (const auto& t : history) ok &= run_step(t.name, out, [&] { maintain_history(conn, cfg, t, out, outcome); });
    ok &= run_step("sessions", out, [&] { purge_sessions(conn, cfg, out); });
    ok &= run_step("auth_failures", out, [&] { purge_auth_failures(conn, cfg, out); });
    ok &= run_step("app_auth_failures", out, [&] { purge_app_auth_failures(conn, cfg, out); });
    ok &= run_step("card_recent_topups", out, [&] { purge_recent_topups(conn, cfg, out); });
    ok &= run_step("retried_calls", out, [&] { purge_retried_calls(conn, cfg, out); });
    ok &= run_step("decided_calls", out, [&] { purge_decided_calls(conn, cfg, out); });
    ok &= run_step("idempotency_keys", out, [&] { purge_idempotency_keys(conn, cfg, out); });
    if (outcome) outcome->succeeded = ok;
    return ok ? 0 : 1;
}

}  // namespace keeper::db
