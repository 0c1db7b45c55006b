#pragma once
// The clients the pool refused lately, each by its connection (address and port, as nginx or the
// front passes them) with the moment the Retry-After it was told runs out. A client refused again
// before that moment did not wait what it was told: one of a retry storm, whose refusal the refuser
// holds (docs/design.md, "Overload"). A client that waits is never taken for one, however many
// there are and however long they have been refused.
//
// One object in shared memory (pool/shared_memory.hpp), mapped by the supervisor before it forks:
// nginx spreads one client's calls over every worker process's connections, so a record of each
// worker's own would know a client only once each worker had refused it. Every worker's refuser
// reads and writes it under a robust lock (process_shared_mutex.hpp). A fixed table,
// each client in a small neighbourhood of its hash's slot: when that is full of clients still
// waiting, the one whose wait ends first is forgotten, and its next refusal counts as a first one.
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "process_shared_mutex.hpp"

namespace keeper::pool {

// How long the refuser holds the refusal of a client that did not wait (pool/held_refusals.hpp).
inline constexpr std::chrono::seconds refusal_hold{1};

class refused_clients {
public:
    using clock = std::chrono::steady_clock;  // the system's monotonic clock: one for every process

    refused_clients() = default;  // in the shared mapping, before fork

    // `client` is refused at `now` and told to wait `told`: whether it came back before the wait it
    // was told at its last refusal ran out. Its wait runs from its answer: refusal_hold later for
    // one that did not wait, whose answer is held, so that a client which then waits is not taken
    // for one again. A client with no name (no address and port), or a name longer than an IPv6
    // address and a port, is never one.
    bool refused(std::string_view client, clock::time_point now, std::chrono::seconds told);

    static constexpr std::size_t slots = 16384;  // 1.1 MiB for the pool
    static constexpr std::size_t probes = 16;    // the neighbourhood a client's entry may take
    static constexpr std::size_t name_capacity = 63;

private:
    struct entry {
        std::int64_t until = 0;  // steady clock, nanoseconds; 0: a free slot
        std::uint8_t name_size = 0;
        std::array<char, name_capacity> name{};
    };
    entry& slot_for(std::string_view client, std::int64_t now);

    // Taken over from a worker that died holding it: an entry it left half written names a client
    // wrongly at worst, which then has one refusal counted as a first one, or held.
    process_shared_mutex m_mutex;
    std::array<entry, slots> m_entries{};
};

}  // namespace keeper::pool
