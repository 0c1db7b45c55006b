// keeper-fcgi: the FastCGI worker pool. Listens on the socket systemd hands over (LISTEN_FDS, or
// fd 0), or on --listen (a unix socket path or 127.0.0.1:PORT), and runs N workers on it, each
// serving several connections at once on its threads (docs/design.md).
#include <signal.h>

#include <cstdlib>

#include <iostream>
#include <optional>
#include <string>

#include "config/settings_file.hpp"
#include "core/api/settings.hpp"
#include "core/pipeline/metrics.hpp"
#include "fcgi/listen_sockets.hpp"
#include "log_writer.hpp"
#include "shared_memory.hpp"
#include "startup_checks.hpp"
#include "worker_pool.hpp"

namespace {

void print_usage(std::ostream& out) {
    out << "usage: keeper-fcgi [--config FILE] [--listen ADDRESS] [--retry-listen ADDRESS] [--workers N]\n"
           "       keeper-fcgi [--config FILE] --check-config\n\n"
           "Runs the keeper FastCGI worker pool. ADDRESS is a unix socket path or HOST:PORT;\n"
           "without it the pool uses the socket systemd hands over (fd 0, or LISTEN_FDS). The retry\n"
           "socket takes what nginx sends again after a worker died with it (its backup server);\n"
           "without --retry-listen it is systemd's second socket (LISTEN_FDS=2), or there is none.\n"
           "Signals: SIGTERM/SIGINT stop (each worker finishes its request); SIGHUP re-reads the\n"
           "configuration and replaces the workers; a configuration that fails --check-config is\n"
           "refused and the running workers keep serving. While the database's schema is not the one\n"
           "this build needs (a migration pending), the pool waits for it instead of serving.\n"
           "--check-config: check the configuration, the key file and, when the database answers,\n"
           "its schema version and keys, as a reload does; exit 0 when all hold, 1 when the\n"
           "configuration or key file is wrong, 3 when the database is not ready for this build\n"
           "(a migration to run), each saying why.\n"
           "Configuration: FILE (default $KEEPER_CONFIG or /etc/keeper/keeper.conf), then\n"
           "KEEPER_<KEY> environment variables. Logs one line per request to stderr.\n";
}

// --check-config, as `nginx -t`: what a reload would refuse, said before it is tried. The
// configuration and what the database lacks are told apart: exit 1 for a configuration (or key
// file) that is wrong, 3 for a right one whose database is not ready for this build (a migration
// to run, as on a fresh install; keeperctl status says 3 for the same), either refusing a reload.
int check_config(const std::string& config_path) {
    const auto cfg = keeper::pool::load_checked_settings(config_path);
    const auto db = keeper::pool::check_database(cfg);
    std::cout << "keeper-fcgi: " << config_path << ": configuration ok" << std::endl;
    if (!db.reachable) {
        std::cout << "keeper-fcgi: database unreachable, schema and keys not checked" << std::endl;
        return 0;
    }
    if (!db.schema_matches()) {
        std::cout << "keeper-fcgi: the database is not ready for this keeper: " << db.schema_problem() << std::endl;
        return 3;
    }
    std::cout << "keeper-fcgi: database schema version " << db.found_version << ", keys open" << std::endl;
    if (!db.durability_warning.empty()) std::cout << "keeper-fcgi: warning: " << db.durability_warning << std::endl;
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    std::string config_path = keeper::config::default_config_path();
    std::string listen, retry_listen, workers;
    bool check_only = false;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        const bool has_value = i + 1 < argc;
        if (arg == "--help" || arg == "-h") {
            print_usage(std::cout);
            return 0;
        }
        if (arg == "--config" && has_value) {
            config_path = argv[++i];
            continue;
        }
        if (arg == "--check-config") {
            check_only = true;
            continue;
        }
        if (arg == "--listen" && has_value) {
            listen = argv[++i];
            continue;
        }
        if (arg == "--retry-listen" && has_value) {
            retry_listen = argv[++i];
            continue;
        }
        if (arg == "--workers" && has_value) {
            workers = argv[++i];
            continue;
        }
        print_usage(std::cerr);
        return 2;
    }
    try {
        if (!listen.empty()) setenv("KEEPER_LISTEN", listen.c_str(), 1);
        if (!retry_listen.empty()) setenv("KEEPER_RETRY_LISTEN", retry_listen.c_str(), 1);
        if (!workers.empty()) setenv("KEEPER_WORKERS", workers.c_str(), 1);
        if (check_only) return check_config(config_path);
        // A peer gone is an error a write returns (the answers' sends say MSG_NOSIGNAL; the logs'
        // pipe may close too), never the end of the process.
        signal(SIGPIPE, SIG_IGN);
        keeper::pool::log_library_output();
        // The sockets need no file when they come from systemd or --listen: with a file that does not
        // load, they are opened all the same, and the pool answers on them while it waits for a
        // good one, instead of exiting into systemd's start limit.
        std::optional<keeper::core::settings> loaded;
        std::string refused;
        try {
            loaded = keeper::pool::load_checked_settings(config_path);
            keeper::pool::use_log_format(loaded->log_format);
        } catch (const std::exception& e) {
            refused = e.what();
            keeper::pool::use_log_format(keeper::config::log_format_of(config_path));
        }
        keeper::fcgi::listen_sockets sockets;
        try {
            const auto& listening = loaded ? *loaded : keeper::config::load_settings("");
            sockets = keeper::fcgi::open_listen_sockets(listening.listen, listening.retry_listen);
        } catch (const std::exception&) {
            if (!loaded) throw std::runtime_error(refused);  // no socket to answer on: the file's fault first
            throw;
        }
        const auto cfg = loaded ? *loaded : keeper::pool::wait_for_configuration(config_path, sockets);
        signal(SIGHUP, SIG_IGN);                      // a reload while waiting has nothing to replace
        keeper::pool::wait_for_schema(cfg, sockets);  // answering every request "not applied" meanwhile
        signal(SIGHUP, SIG_DFL);  // run_pool takes it by sigtimedwait, which an ignored signal never reaches
        // SIGHUP re-reads the same file (and environment) for the next set of workers.
        const auto reload = [config_path] { return keeper::pool::check_for_reload(config_path).settings; };
        // Before the workers fork: they all share them.
        keeper::pool::in_shared_memory<keeper::pool::shared_metrics> metrics{"metrics"};
        keeper::pool::in_shared_memory<keeper::pool::calls_in_flight> calls{"the calls in flight"};
        keeper::pool::in_shared_memory<keeper::pool::refused_clients> refused_clients{"the refused clients"};
        return keeper::pool::run_pool(sockets, cfg, reload, {metrics.get(), calls.get(), refused_clients.get()});
    } catch (const std::exception& e) {
        keeper::pool::log_event("keeper-fcgi", e.what());
        return 1;
    }
}
