#pragma once
// A TCP front for the test database that can stop answering, as a server behind a dead link or a
// firewall that drops packets does: it forwards connections to the database's Unix socket, and
// either holds every cancel request (PostgreSQL's cancel port blackholed) or holds every new
// connection unanswered (a server that accepted and then hung). A held connection stays open,
// unread, until the proxy goes; a held cancel request for cancel_hold at most, so that a sender
// that waits for it (a defect the tests look for) fails its test instead of hanging it.
#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace keeper::test {

class stalling_proxy {
public:
    enum class holds { cancel_requests, every_connection };
    static constexpr std::chrono::seconds cancel_hold{20};

    // Forwards to the server of `database_url` (a libpq string naming a socket directory).
    stalling_proxy(const std::string& database_url, holds what);
    ~stalling_proxy();
    stalling_proxy(const stalling_proxy&) = delete;
    stalling_proxy& operator=(const stalling_proxy&) = delete;

    // database_url reached through the proxy: host 127.0.0.1 and the proxy's port.
    std::string url() const { return m_url; }
    // Cancel requests (or connections) held so far.
    int held() const { return m_held.load(); }

private:
    void accept_loop();
    void serve(int client);

    holds m_what;
    std::string m_socket_path;
    std::string m_url;
    int m_listener = -1;
    std::atomic<bool> m_stopping = false;
    std::atomic<int> m_held = 0;
    std::mutex m_mutex;
    std::vector<int> m_open;  // every socket still open, closed by the destructor
    std::vector<std::thread> m_threads;
    std::thread m_acceptor;
};

}  // namespace keeper::test
