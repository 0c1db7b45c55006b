// The call executor's settling of a call whose first attempt may have committed (docs/design.md,
// "In-doubt calls", "No acknowledgement before replication").
#include <pqxx/pqxx>

#include "db/store/backend_ending.hpp"
#include "db/store/call_executor.hpp"
#include "db/store/sql_errors.hpp"
#include "db/store/statement_lease.hpp"
#include "db/store/statements.hpp"

namespace keeper::db {

std::optional<core::result_code> call_executor::settle(const backend_identity& backend, std::string_view request_id,
                                                       const core::deadline& until) {
    return settle_with([&](pqxx::connection& conn) { return end_backend(conn, backend, until); }, request_id, until);
}

std::optional<core::result_code> call_executor::settle_retried(std::string_view request_id, const core::deadline& until,
                                                               const std::optional<backend_identity>& first_attempt) {
    return settle_with(
        [&](pqxx::connection& conn) {
            list_as_retried(conn, request_id);
            return end_claim_holder(conn, request_id, until) &&
                   (!first_attempt || end_backend(conn, *first_attempt, until)) &&
                   end_left_by_dead_workers(conn, until);
        },
        request_id, until);
}

std::optional<core::result_code> call_executor::settle_with(const std::function<bool(pqxx::connection&)>& end_first,
                                                            std::string_view request_id, const core::deadline& until) {
    constexpr const auto& s = statements::call_outcome;
    const auto recorded = [&](pqxx::connection& conn) -> std::optional<core::result_code> {
        if (!end_first(conn)) throw not_done("the call's server process did not end");
        const auto row = pqxx::nontransaction{conn}.exec_prepared1(std::string{s.name}, std::string{request_id});
        const auto field = row[s.column("result").data()];
        if (field.is_null()) return std::nullopt;
        return static_cast<core::result_code>(field.as<int>());
    };
    std::optional<core::result_code> outcome;
    for (int attempt = 0;; ++attempt) {
        try {
            statement_lease lease{m_pool, m_watch, cancel_point(until), until, m_gauges};
            outcome = lease.run("settling an in-doubt call", recorded);
            break;
        } catch (const core::store_error&) {
            if (!pause_before_retry(until, attempt)) give_up_unknown(request_id, "not settled by the call's deadline");
        }
    }
    // Ending the first attempt's server process makes a commit that waited for the standby visible
    // here before the standby has it: a failover now would lose what the answer acknowledges.
    if (outcome && !on_standby(request_id, until)) give_up_unknown(request_id, not_on_standby);
    return outcome;
}

bool call_executor::on_standby(std::string_view request_id, const core::deadline& until) {
    constexpr const auto& s = statements::await_standby;
    try {
        statement_lease lease{m_pool, m_watch, cancel_point(until), until, m_gauges};
        lease.run(s.name, [&](pqxx::connection& conn) {
            return pqxx::nontransaction{conn}.exec_prepared(std::string{s.name}, std::string{request_id});
        });
        // Interrupted, its commit stopped waiting for the standby: nothing is known of it.
        return !lease.interrupted();
    } catch (const core::store_error&) {
        return false;
    }
}

}  // namespace keeper::db
