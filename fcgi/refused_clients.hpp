#pragma once
// The clients a worker refused lately, each by its connection (address and port, as nginx or the
// front passes them) with the moment the Retry-After it was told runs out. A client refused again
// before that moment did not wait what it was told: one of a retry storm, whose refusal the refuser
// holds (docs/design.md, "Overload"). A client that waits is never taken for one, however many
// there are and however long they have been refused. Read and written by the refuser thread alone.
#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>

namespace keeper::fcgi {

// How long the refuser holds the refusal of a client that did not wait (fcgi/held_refusals.hpp).
inline constexpr std::chrono::seconds refusal_hold{1};

class refused_clients {
public:
    using clock = std::chrono::steady_clock;

    // capacity: clients remembered at once, about 100 bytes each (16 384: under 2 MiB a worker).
    explicit refused_clients(std::size_t capacity = 16384);

    // `client` is refused at `now` and told to wait `told`: whether it came back before the wait it
    // was told at its last refusal ran out. Its wait runs from its answer: refusal_hold later for
    // one that did not wait, whose answer is held, so that a client which then waits is not taken
    // for one again. A client with no name (no address and port) is never one.
    bool refused(std::string_view client, clock::time_point now, std::chrono::seconds told);
    std::size_t size() const { return m_until.size(); }

private:
    void make_room(clock::time_point now);

    std::size_t m_capacity;
    std::unordered_map<std::string, clock::time_point> m_until;
};

}  // namespace keeper::fcgi
