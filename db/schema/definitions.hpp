#pragma once
// Repeatable definitions: every SQL function lives in one file of db/functions/ (docs/schema.md,
// "Functions"). keeperctl migrate applies a file again whenever its checksum differs from the one
// recorded in schema_definitions, after the numbered migrations and in the transaction of the last
// of them, so the tables and the functions that use them change together. A file therefore says
// CREATE OR REPLACE, and drops an earlier signature itself when its arguments change.
#include <ostream>
#include <pqxx/pqxx>
#include <string>
#include <vector>

namespace keeper::db {

struct definition {
    std::string name;  // "keeper_topup" for db/functions/keeper_topup.sql
    std::string sql;
    std::string checksum;
};

enum class definition_state {
    current,  // applied with this text
    changed,  // applied with another text: the next migrate applies this one
    pending,  // never applied
    orphan,   // recorded, but no file of this build defines it any more
};

struct definition_status_row {
    std::string name;
    definition_state state = definition_state::pending;
    std::string applied_at;  // empty when pending
};

// The files this build carries, in name order.
const std::vector<definition>& known_definitions();

// Creates schema_definitions if missing. Inside the caller's transaction.
void create_definitions_table(pqxx::transaction_base& tx);

// Applies every file whose recorded checksum differs (or is missing) and records it; reports each
// to out. Inside the caller's transaction. Returns how many it applied.
int apply_changed_definitions(pqxx::transaction_base& tx, std::ostream& out);

// Every known file and every recorded name, in name order.
std::vector<definition_status_row> definition_status(pqxx::connection_base& conn);

const char* to_string(definition_state s);

}  // namespace keeper::db
