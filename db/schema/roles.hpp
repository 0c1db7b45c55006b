#pragma once
// The database roles keeper's parts connect as, and exactly what each may do (docs/schema.md,
// "Roles"). The schema owner runs migrations; the workers, maintenance and provisioning each
// have a role of their own, so a compromised worker can neither change the schema nor rewrite
// the audit trail.
#include <ostream>
#include <pqxx/pqxx>
#include <string>
#include <string_view>
#include <vector>

namespace keeper::db {

struct table_grant {
    std::string_view table;
    std::string_view privileges;  // as in GRANT, e.g. "SELECT, INSERT"
};

struct role_spec {
    std::string_view name;
    std::string_view purpose;
    std::vector<table_grant> grants;
};

inline constexpr std::string_view worker_role = "keeper_worker";
inline constexpr std::string_view maintain_role = "keeper_maintain";
inline constexpr std::string_view provision_role = "keeper_provision";

// The three roles and their table privileges, worker first.
const std::vector<role_spec>& role_specs();

// Statements that create whichever role is missing (that needs CREATEROLE; a DBA may create them
// beforehand instead) and set every grant anew, so running them twice changes nothing. They name
// the connection's database and schema.
std::vector<std::string> roles_sql(pqxx::connection_base& conn);

// Runs roles_sql in one transaction; reports what it did.
void apply_roles(pqxx::connection_base& conn, std::ostream& out);

}  // namespace keeper::db
