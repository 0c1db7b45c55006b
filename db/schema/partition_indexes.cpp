#include "db/schema/partition_indexes.hpp"

#include <chrono>
#include <iomanip>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace keeper::db {
namespace {

// One partition that lacks its share of an invalid partitioned index.
struct missing_share {
    std::string parent_index;  // as regclass text (quoted, qualified when off the search path)
    std::string partition;     // likewise
    std::string name;          // the share's name, quoted; it lives in the partition's schema
    std::string qualified;     // the share's name, quoted and schema-qualified
    std::string definition;    // the parent index's pg_get_indexdef
};

// The share is named as PostgreSQL names its own: the partition's name, then what the parent
// index's name adds to its table's ("audit_log_hour_login_idx" on audit_log_p2026_11 is
// audit_log_p2026_11_hour_login_idx), cut to PostgreSQL's 63 bytes.
constexpr const char* missing_shares_sql = R"(
SELECT pi.indexrelid::regclass::text, part.oid::regclass::text,
       quote_ident(s.name), format('%I.%I', n.nspname, s.name), pg_get_indexdef(pi.indexrelid)
  FROM pg_index pi
  JOIN pg_class ic ON ic.oid = pi.indexrelid AND ic.relkind = 'I'
  JOIN pg_class t ON t.oid = pi.indrelid AND t.relnamespace = current_schema()::regnamespace
  JOIN pg_inherits inh ON inh.inhparent = t.oid
  JOIN pg_class part ON part.oid = inh.inhrelid AND part.relkind = 'r'
  JOIN pg_namespace n ON n.oid = part.relnamespace
 CROSS JOIN LATERAL (SELECT left(part.relname || CASE WHEN starts_with(ic.relname, t.relname || '_')
                                                      THEN substr(ic.relname, length(t.relname) + 1)
                                                      ELSE '_' || ic.relname END, 63) AS name) s
 WHERE NOT pi.indisvalid
   AND NOT EXISTS (SELECT 1 FROM pg_inherits ii JOIN pg_index ci ON ci.indexrelid = ii.inhrelid
                    WHERE ii.inhparent = pi.indexrelid AND ci.indrelid = part.oid)
 ORDER BY 1, 2
)";

std::vector<missing_share> missing_shares(pqxx::connection_base& conn) {
    std::vector<missing_share> out;
    pqxx::nontransaction tx{conn};
    for (const auto& r : tx.exec(missing_shares_sql)) {
        out.push_back({r[0].as<std::string>(), r[1].as<std::string>(), r[2].as<std::string>(), r[3].as<std::string>(),
                       r[4].as<std::string>()});
    }
    return out;
}

// "USING btree (...) WHERE ...": the index's method, keys and predicate, without its table.
std::string method_and_keys(const std::string& definition) {
    const auto at = definition.find(" USING ");
    if (at == std::string::npos) throw std::runtime_error("unexpected index definition: " + definition);
    return definition.substr(at + 1);
}

enum class leftover { none, valid, invalid };

// A share of the same name that an earlier run built (valid, but not attached yet) or left half
// built (a CREATE INDEX CONCURRENTLY that was interrupted leaves an invalid index behind).
leftover find_leftover(pqxx::connection_base& conn, const missing_share& s) {
    pqxx::nontransaction tx{conn};
    const auto r = tx.exec_params(
        "SELECT i.indisvalid FROM pg_index i WHERE i.indexrelid = to_regclass($1) AND i.indrelid = $2::regclass",
        s.qualified, s.partition);
    if (r.empty()) return leftover::none;
    return r[0][0].as<bool>() ? leftover::valid : leftover::invalid;
}

double build(pqxx::connection_base& conn, const missing_share& s) {
    const auto start = std::chrono::steady_clock::now();
    switch (find_leftover(conn, s)) {
        case leftover::valid:
            break;
        case leftover::invalid:
            pqxx::nontransaction{conn}.exec("DROP INDEX CONCURRENTLY " + s.qualified);
            [[fallthrough]];
        case leftover::none:
            pqxx::nontransaction{conn}.exec("CREATE INDEX CONCURRENTLY " + s.name + " ON " + s.partition + " " +
                                            method_and_keys(s.definition));
            break;
    }
    pqxx::nontransaction{conn}.exec("ALTER INDEX " + s.parent_index + " ATTACH PARTITION " + s.qualified);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int build_partition_indexes(pqxx::connection_base& conn, std::ostream& out) {
    const auto shares = missing_shares(conn);
    if (shares.empty()) return 0;
    // A concurrent build waits for every transaction that began before it; a lock timeout left
    // from another step would cut that wait short.
    pqxx::nontransaction{conn}.exec("SET lock_timeout = 0");
    for (const auto& s : shares) {
        std::ostringstream seconds;
        seconds << std::fixed << std::setprecision(1) << build(conn, s);
        out << s.parent_index << ": built " << s.qualified << " on " << s.partition << " (" << seconds.str() << " s)\n";
    }
    return static_cast<int>(shares.size());
}

}  // namespace keeper::db
