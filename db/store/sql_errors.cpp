#include "db/store/sql_errors.hpp"

#include <charconv>

namespace keeper::db {
namespace {

std::string during(std::string_view what) { return " during " + std::string{what}; }

void count(database_gauges* gauges, std::atomic<std::uint64_t> database_gauges::*counter) {
    if (gauges) (gauges->*counter).fetch_add(1, std::memory_order_relaxed);
}

// A statement the server answered with an error: typed by its SQLSTATE alone.
[[noreturn]] void throw_sql_error(const pqxx::sql_error& e, std::string_view what, const backend_identity& backend,
                                  connection_after& after, database_gauges* gauges) {
    const std::string_view state = e.sqlstate();
    // docs/operations.md ("Logs") names these texts.
    const std::string sql_error = "SQL error " + std::string{state} + " in " + std::string{what};
    if (state.empty()) {
        // Every error the server sends names its SQLSTATE; one without is libpq's own, as when the
        // server closed the connection mid-statement (a restart): the statement may have run.
        after = connection_after::broken;
        throw in_doubt("database connection lost (no SQLSTATE)" + during(what), backend);
    }
    if (state == "25006") {
        after = connection_after::broken;
        throw not_done("the database host is read-only (a standby)" + during(what));
    }
    if (state.starts_with("57P") || state.starts_with("08")) {
        // The server ended this session (admin shutdown, crash, terminated) or the link failed.
        after = connection_after::broken;
        throw in_doubt("database session ended (SQLSTATE " + std::string{state} + ")" + during(what), backend);
    }
    if (state == "23505") throw unique_violation(sql_error);
    if (const auto recorded = replayed_result(state)) throw replay(*recorded, state.starts_with("KI"));
    if (state == "KI422") throw core::key_reused();
    // keeper_claim: the attempt began after its call's deadline and did nothing.
    if (state == "KD001") throw core::not_applied(sql_error);
    // keeper_audit: /call-outcome decided the call as not applied; this attempt rolled back.
    if (state == "KD002") throw decided_not_applied(sql_error);
    if (state == "55P03") {
        count(gauges, &database_gauges::lock_timeouts);
        throw lock_timed_out(sql_error);
    }
    if (state == "57014") {
        // Cancelled (statement_timeout, or the call's cancel point) and rolled back.
        count(gauges, &database_gauges::statement_timeouts);
        throw core::not_applied(sql_error);
    }
    throw core::store_error(sql_error);
}

}  // namespace

std::optional<core::result_code> replayed_result(std::string_view sqlstate) {
    if (sqlstate.size() != 5 || !(sqlstate.starts_with("KI2") || sqlstate.starts_with("KC2"))) return std::nullopt;
    int code = 0;
    const auto* end = sqlstate.data() + sqlstate.size();
    if (std::from_chars(sqlstate.data() + 3, end, code).ptr != end || code > core::last_result_code)
        return std::nullopt;
    return static_cast<core::result_code>(code);
}

void throw_typed(const pqxx::failure& e, std::string_view what, const backend_identity& backend,
                 connection_after& after, database_gauges* gauges) {
    if (const auto* sql = dynamic_cast<const pqxx::sql_error*>(&e)) throw_sql_error(*sql, what, backend, after, gauges);
    after = connection_after::broken;
    if (dynamic_cast<const pqxx::in_doubt_error*>(&e)) {
        throw in_doubt("commit outcome unknown (connection lost)" + during(what), backend);
    }
    // broken_connection, and any other failure of the link: the statement may have run.
    throw in_doubt("database connection lost" + during(what), backend);
}

}  // namespace keeper::db
