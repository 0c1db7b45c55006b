#include "pg_store.hpp"

#include <pqxx/pqxx>

#include "statements.hpp"

namespace keeper::db {
namespace {

using core::store_error;

// Runs f, translating libpqxx's errors. Messages name the statement and SQLSTATE, never the
// values, so nothing from a request (a secret, a code) can reach the log through them.
template <typename F>
auto translated(std::string_view what, bool& broken, F&& f) -> decltype(f()) {
    try {
        return f();
    } catch (const pqxx::broken_connection&) {
        broken = true;
        throw store_error("database connection lost during " + std::string{what});
    } catch (const pqxx::in_doubt_error&) {
        broken = true;
        throw store_error("commit outcome unknown during " + std::string{what} + " (connection lost)");
    } catch (const pqxx::sql_error& e) {
        throw store_error("SQL error " + e.sqlstate() + " in " + std::string{what});
    } catch (const pqxx::failure&) {
        broken = true;
        throw store_error("database failure during " + std::string{what});
    }
}

std::chrono::seconds::rep seconds(std::chrono::seconds s) { return s.count(); }

class pg_transaction final : public core::transaction {
public:
    pg_transaction(pqxx::connection& conn, bool& broken) : m_broken(broken), m_work(conn) {}

    std::optional<core::login_record> find_login_for_update(std::string_view login) override {
        const auto r = run("find_login_for_update", std::string{login});
        if (r.empty()) return std::nullopt;
        return core::login_record{r[0][0].as<std::int64_t>(), r[0][1].as<std::string>(), r[0][2].as<std::string>()};
    }

    int count_auth_failures(std::string_view login, std::chrono::seconds window) override {
        return run("count_auth_failures", std::string{login}, seconds(window))[0][0].as<int>();
    }

    void record_auth_failure(std::string_view login, std::chrono::seconds window) override {
        run("prune_auth_failures", std::string{login}, seconds(window));
        run("record_auth_failure", std::string{login});
    }

    void clear_auth_failures(std::string_view login) override { run("clear_auth_failures", std::string{login}); }

    bool bind_session(std::string_view session_id, std::int64_t login_id) override {
        return !run("bind_session", std::string{session_id}, login_id).empty();
    }

    core::session_lookup find_session(std::string_view session_id, std::chrono::seconds ttl) override {
        const auto r = run("find_session", std::string{session_id}, seconds(ttl));
        if (r.empty()) return {};
        const auto status = r[0][2].as<bool>() ? core::session_status::valid : core::session_status::expired;
        return {status, r[0][0].as<std::int64_t>(), r[0][1].as<std::string>()};
    }

    std::optional<core::application_record> find_application(std::string_view app_id) override {
        const auto r = run("find_application", std::string{app_id});
        if (r.empty()) return std::nullopt;
        const auto provider = core::provider_from_name(r[0][2].as<std::string>());
        return core::application_record{r[0][0].as<std::string>(), r[0][1].as<std::string>(),
                                        provider.value_or(core::provider::Undefined), r[0][3].as<bool>()};
    }

    void write_audit(const core::audit_record& a) override {
        run("write_audit", a.login, a.app_id, a.operation, a.result, a.request_id);
    }

    void commit() override {
        translated("commit", m_broken, [&] { m_work.commit(); });
    }

private:
    template <typename... Args>
    pqxx::result run(std::string_view name, Args&&... args) {
        return translated(name, m_broken, [&] { return m_work.exec_prepared(std::string{name}, std::forward<Args>(args)...); });
    }

    bool& m_broken;
    pqxx::work m_work;
};

}  // namespace

pg_store::pg_store(std::string conninfo) : m_conninfo(std::move(conninfo)) {}
pg_store::~pg_store() = default;

pqxx::connection& pg_store::connection() {
    if (m_conn && !m_broken && m_conn->is_open()) return *m_conn;
    m_conn.reset();
    m_broken = false;
    try {
        auto conn = std::make_unique<pqxx::connection>(m_conninfo);
        for (const auto& s : worker_statements) conn->prepare(std::string{s.name}, std::string{s.sql});
        m_conn = std::move(conn);
    } catch (const pqxx::failure&) {
        throw store_error("cannot connect to the database");
    }
    return *m_conn;
}

std::unique_ptr<core::transaction> pg_store::begin() {
    auto& conn = connection();
    return translated("begin", m_broken, [&] { return std::make_unique<pg_transaction>(conn, m_broken); });
}

bool pg_store::ping() {
    try {
        auto& conn = connection();
        pqxx::nontransaction{conn}.exec("SELECT 1");
        return true;
    } catch (...) {
        m_conn.reset();
        return false;
    }
}

}  // namespace keeper::db
