#include "db/schema/definitions.hpp"

#include <map>

#include "db/schema/embedded_sql.hpp"

namespace keeper::db {
namespace {

constexpr const char* create_table_sql = R"(
CREATE TABLE IF NOT EXISTS schema_definitions (
    name       text        PRIMARY KEY,
    checksum   text        NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE schema_definitions IS 'Applied files of db/functions (one SQL function each), one row per file; keeperctl migrate applies a file again when its checksum differs.';
COMMENT ON COLUMN schema_definitions.name IS 'The file''s name without .sql, which is the function''s name.';
COMMENT ON COLUMN schema_definitions.checksum IS 'SHA-256 of the file as last applied.';
COMMENT ON COLUMN schema_definitions.applied_at IS 'When the file was last applied.';
)";

struct recorded {
    std::string checksum;
    std::string applied_at;
};

std::map<std::string, recorded> recorded_definitions(pqxx::transaction_base& tx) {
    std::map<std::string, recorded> out;
    if (!tx.exec1("SELECT to_regclass('schema_definitions') IS NOT NULL")[0].as<bool>()) return out;
    for (const auto& row : tx.exec("SELECT name, checksum, applied_at::text FROM schema_definitions")) {
        out[row[0].as<std::string>()] = {row[1].as<std::string>(), row[2].as<std::string>()};
    }
    return out;
}

}  // namespace

const std::vector<definition>& known_definitions() {
    static const std::vector<definition> all = [] {
        std::vector<definition> out;
        for (const auto& src : embedded_functions()) {
            out.push_back({std::string{src.file_stem}, std::string{src.sql}, sql_checksum(src.sql)});
        }
        return out;
    }();
    return all;
}

void create_definitions_table(pqxx::transaction_base& tx) { tx.exec(create_table_sql); }

int apply_changed_definitions(pqxx::transaction_base& tx, std::ostream& out) {
    const auto applied = recorded_definitions(tx);
    // Files go in name order, and a SQL function's body names others (keeper_login_calls calls
    // keeper_hours): as pg_dump does, leave bodies unchecked at definition; every function is
    // called by the tests.
    tx.exec("SET LOCAL check_function_bodies = off");
    int count = 0;
    for (const auto& d : known_definitions()) {
        const auto it = applied.find(d.name);
        if (it != applied.end() && it->second.checksum == d.checksum) continue;
        tx.exec(d.sql);
        tx.exec_params(
            "INSERT INTO schema_definitions (name, checksum) VALUES ($1, $2) "
            "ON CONFLICT (name) DO UPDATE SET checksum = EXCLUDED.checksum, applied_at = now()",
            d.name, d.checksum);
        out << "defined " << d.name << "\n";
        ++count;
    }
    return count;
}

std::vector<definition_status_row> definition_status(pqxx::connection_base& conn) {
    pqxx::read_transaction tx{conn};
    auto applied = recorded_definitions(tx);
    std::vector<definition_status_row> out;
    for (const auto& d : known_definitions()) {
        const auto it = applied.find(d.name);
        if (it == applied.end()) {
            out.push_back({d.name, definition_state::pending, ""});
            continue;
        }
        const auto state = it->second.checksum == d.checksum ? definition_state::current : definition_state::changed;
        out.push_back({d.name, state, it->second.applied_at});
        applied.erase(it);
    }
    for (const auto& [name, row] : applied) out.push_back({name, definition_state::orphan, row.applied_at});
    return out;
}

const char* to_string(definition_state s) {
    switch (s) {
        case definition_state::current:
            return "current";
        case definition_state::changed:
            return "changed";
        case definition_state::pending:
            return "pending";
        case definition_state::orphan:
            return "orphan";
    }
    return "?";
}

}  // namespace keeper::db
