// keeper-fcgi: the FastCGI worker pool. Listens on the socket systemd hands over on fd 0, or on
// --listen (a unix socket path or 127.0.0.1:PORT), and runs N single-threaded workers on it.
#include <fcgiapp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>

#include <iostream>
#include <pqxx/pqxx>
#include <string>

#include "config/connection_strings.hpp"
#include "config/settings_file.hpp"
#include "core/api/settings.hpp"
#include "db/schema/migrator.hpp"
#include "db/secrets/secret_rotation.hpp"
#include "shared_metrics.hpp"
#include "worker_pool.hpp"

namespace {

constexpr int listen_backlog = 1024;

void print_usage(std::ostream& out) {
    out << "usage: keeper-fcgi [--config FILE] [--listen ADDRESS] [--retry-listen ADDRESS] [--workers N]\n\n"
           "Runs the keeper FastCGI worker pool. ADDRESS is a unix socket path or HOST:PORT;\n"
           "without it the pool uses the socket systemd hands over (fd 0, or LISTEN_FDS). The retry\n"
           "socket takes what nginx sends again after a worker died with it (its backup server);\n"
           "without --retry-listen it is systemd's second socket (LISTEN_FDS=2), or there is none.\n"
           "Signals: SIGTERM/SIGINT stop (each worker finishes its request); SIGHUP re-reads the\n"
           "configuration and replaces the workers.\n"
           "Configuration: FILE (default $KEEPER_CONFIG or /etc/keeper/keeper.conf), then\n"
           "KEEPER_<KEY> environment variables. Logs one line per request to stderr.\n";
}

bool is_socket(int fd) {
    struct stat st {};
    return fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode);
}

// systemd's protocol: LISTEN_FDS=N for this pid means the sockets are fds 3 .. 3+N-1, in the
// order the socket unit lists them (keeper.socket: the pool's socket, then the retry socket).
int listen_fds() {
    const char* fds = std::getenv("LISTEN_FDS");
    const char* pid = std::getenv("LISTEN_PID");
    if (!fds || (pid && std::to_string(getpid()) != pid)) return 0;
    const std::string n{fds};
    return n == "1" ? 1 : n == "2" ? 2 : 0;
}

int open_socket(const std::string& address) {
    const int fd = FCGX_OpenSocket(address.c_str(), listen_backlog);
    if (fd < 0) throw std::runtime_error("cannot listen on " + address);
    // A unix socket is for nginx, which runs as the same service user or its group.
    if (address.find(':') == std::string::npos) chmod(address.c_str(), 0660);
    return fd;
}

keeper::fcgi::listen_sockets open_listen_sockets(const keeper::core::settings& cfg) {
    keeper::fcgi::listen_sockets out;
    if (!cfg.listen.empty()) {
        out.main_fd = open_socket(cfg.listen);
    } else if (listen_fds() >= 1 && is_socket(3)) {
        out.main_fd = 3;
    } else if (is_socket(0)) {
        out.main_fd = 0;
    } else {
        throw std::runtime_error("no socket on fd 0 or from LISTEN_FDS: start from the systemd socket unit, or give --listen");
    }
    if (!cfg.retry_listen.empty()) {
        out.retry_fd = open_socket(cfg.retry_listen);
    } else if (listen_fds() == 2 && is_socket(4)) {
        out.retry_fd = 4;
    }
    return out;
}

// Workers that expect another schema, or hold no key or the wrong one for the sealed secrets,
// would fail on every call (every Authenticate): refuse to start instead, saying which.
void check_database(const keeper::core::settings& cfg) {
    namespace db = keeper::db;
    const auto key_path = keeper::config::secret_key_path(cfg);
    const auto key_problem = [&](const db::key_error& e) {
        return std::runtime_error("secret_key_file (" + key_path + "): " + e.what());
    };
    std::optional<db::secret_keyring> keys;
    try {
        keys = db::secret_keyring::load(key_path);
    } catch (const db::key_error& e) {
        throw key_problem(e);
    }
    int found = 0;
    try {
        pqxx::connection conn{keeper::config::worker_conninfo(cfg)};
        found = db::current_schema_version(conn);
        if (found == db::expected_schema_version()) db::check_database_keys(conn, *keys);
    } catch (const pqxx::broken_connection&) {
        std::cerr << "keeper-fcgi: database unreachable at start; workers will connect when it is back" << std::endl;
        return;
    } catch (const db::key_error& e) {
        throw key_problem(e);
    }
    if (found != db::expected_schema_version()) {
        throw std::runtime_error("database schema is version " + std::to_string(found) + ", this keeper needs " +
                                 std::to_string(db::expected_schema_version()) + " (run keeperctl migrate)");
    }
}

}  // namespace

int main(int argc, char** argv) {
    std::string config_path = keeper::config::default_config_path();
    std::string listen, retry_listen, workers;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        const bool has_value = i + 1 < argc;
        if (arg == "--help" || arg == "-h") { print_usage(std::cout); return 0; }
        if (arg == "--config" && has_value) { config_path = argv[++i]; continue; }
        if (arg == "--listen" && has_value) { listen = argv[++i]; continue; }
        if (arg == "--retry-listen" && has_value) { retry_listen = argv[++i]; continue; }
        if (arg == "--workers" && has_value) { workers = argv[++i]; continue; }
        print_usage(std::cerr);
        return 2;
    }
    try {
        if (!listen.empty()) setenv("KEEPER_LISTEN", listen.c_str(), 1);
        if (!retry_listen.empty()) setenv("KEEPER_RETRY_LISTEN", retry_listen.c_str(), 1);
        if (!workers.empty()) setenv("KEEPER_WORKERS", workers.c_str(), 1);
        const auto cfg = keeper::config::load_settings(config_path);
        check_database(cfg);
        FCGX_Init();
        const auto sockets = open_listen_sockets(cfg);
        // SIGHUP re-reads the same file (and environment) for the next set of workers.
        const auto reload = [config_path] { return keeper::config::load_settings(config_path); };
        keeper::fcgi::shared_metrics metrics;  // before the workers fork: they all share it
        return keeper::fcgi::run_pool(sockets, cfg, reload, metrics.block());
    } catch (const std::exception& e) {
        std::cerr << "keeper-fcgi: " << e.what() << std::endl;
        return 1;
    }
}
