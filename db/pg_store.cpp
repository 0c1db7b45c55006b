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

std::string text(std::string_view v) { return std::string{v}; }

// Transfers say 'completed', tasks 'active': both are done.
core::coded_status coded_status_of(const std::string& status) {
    if (status == "pending") return core::coded_status::pending;
    if (status == "locked") return core::coded_status::locked;
    return core::coded_status::done;
}

std::optional<core::coded_object> coded_object_of(const pqxx::result& r) {
    if (r.empty()) return std::nullopt;
    return core::coded_object{coded_status_of(r[0][0].as<std::string>()), r[0][1].as<std::string>(), r[0][2].as<int>(),
                              r[0][3].as<bool>()};
}

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

    void set_account_permits(std::int64_t login_id, bool payments, bool invoices, bool messages) override {
        run("set_account_permits", login_id, payments, invoices, messages);
    }

    void set_contact_permits(std::int64_t login_id, std::string_view wmid, bool payments, bool invoices, bool messages,
                             bool dont_use_confirmation) override {
        run("set_contact_permits", login_id, text(wmid), payments, invoices, messages, dont_use_confirmation);
    }

    std::optional<core::coded_object> find_transfer_for_update(std::int64_t tran_id, std::int64_t login_id) override {
        return coded_object_of(run("find_transfer_for_update", tran_id, login_id));
    }

    void complete_transfer(std::int64_t tran_id) override { run("complete_transfer", tran_id); }

    void record_transfer_failure(std::int64_t tran_id, bool lock) override {
        run("record_transfer_failure", tran_id, lock);
    }

    bool purse_belongs_to(std::string_view purse, std::int64_t login_id) override {
        return !run("purse_belongs_to", text(purse), login_id).empty();
    }

    std::optional<core::card_record> find_card_for_update(std::int64_t card_id, std::int64_t login_id) override {
        const auto r = run("find_card_for_update", card_id, login_id);
        if (r.empty()) return std::nullopt;
        return core::card_record{r[0][0].as<bool>(), r[0][1].as<std::string>()};
    }

    bool exceeds_daily_limit(std::int64_t card_id, std::string_view amount, std::string_view limit) override {
        return run("exceeds_daily_limit", card_id, text(amount), text(limit))[0][0].as<bool>();
    }

    void record_topup(std::int64_t card_id, std::string_view purse, std::string_view amount,
                      std::string_view request_id) override {
        run("insert_topup", card_id, text(purse), text(amount), text(request_id));
        run("credit_purse", text(purse), text(amount));
    }

    bool rename_profile(std::int32_t profile_id, std::int64_t login_id, std::string_view name) override {
        return !run("rename_profile", profile_id, login_id, text(name)).empty();
    }

    std::optional<core::coded_object> find_task_for_update(std::int32_t profile_id, std::int32_t task_id,
                                                           std::int64_t login_id) override {
        return coded_object_of(run("find_task_for_update", profile_id, task_id, login_id));
    }

    void activate_task(std::int32_t profile_id, std::int32_t task_id) override { run("activate_task", profile_id, task_id); }

    void record_task_failure(std::int32_t profile_id, std::int32_t task_id, bool lock) override {
        run("record_task_failure", profile_id, task_id, lock);
    }

    void subscribe_device(const core::device_key& device, std::int64_t login_id, std::int32_t tag,
                          std::int32_t locale) override {
        run("subscribe_device", text(core::provider_name(device.push_provider)), device.push_service_user_id, login_id,
            tag, locale);
    }

    void subscribe_app_device(const core::device_key& device, std::string_view app_id, std::string_view user_id,
                              std::int32_t tag, std::int32_t locale) override {
        run("subscribe_app_device", text(core::provider_name(device.push_provider)), device.push_service_user_id,
            text(app_id), text(user_id), tag, locale);
    }

    bool mark_sms_delivered(std::int32_t sms_id, std::int64_t login_id) override {
        return !run("mark_sms_delivered", sms_id, login_id).empty();
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

bool pg_store::healthy() {
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
