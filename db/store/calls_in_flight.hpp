#pragma once
// The host's record of the write calls in flight: which server process runs a call's first
// attempt, and which calls nginx has sent again (docs/design.md, "In-doubt calls"). nginx, and a
// front, send a call again only to the host that had it, so this host knows every attempt of every
// call it was given. A first attempt found here is one the retry can end without the call's lock
// in the database: a first attempt takes that lock only when its host cannot vouch for it (the
// call marked as sent again before it began, the table's neighbourhood full, a client's trace).
//
// One object in shared memory (fcgi/shared_memory.hpp), mapped by the supervisor before it forks,
// so that every worker process of the pool, and every replacement, sees it; a worker killed inside
// the lock does not wedge it (a robust mutex). Each entry lives at most until its call's deadline:
// after that no attempt of the call begins, and no retry of it settles anything.
#include <array>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string_view>

#include "core/domain/deadline.hpp"
#include "core/pipeline/process_shared_mutex.hpp"
#include "db/store/backend_identity.hpp"

namespace keeper::db {

class calls_in_flight {
public:
    calls_in_flight() = default;  // in the shared mapping, before fork

    // Before a first attempt's statement is sent on the connection of `backend`: true when the
    // attempt is recorded, so it may skip the call's lock; false when the call was sent again
    // already, or there is no room: the attempt then takes the lock as a retry does.
    bool begin_first(std::string_view request_id, const backend_identity& backend, const core::deadline& until);
    // After its statement answered or failed: the entry goes, unless a retry has marked the call,
    // whose mark stays until the deadline for the attempts still to come.
    void end_first(std::string_view request_id);
    // A retry, before it settles anything: marks the call as sent again, so that no first attempt of
    // it begins unlocked from now on, and answers the server process of a first attempt in flight,
    // if one is recorded. False in `marked` only when there was no room for the mark: then every
    // first attempt takes the lock until the call's deadline.
    struct retry_mark {
        bool marked = true;
        std::optional<backend_identity> first_attempt;
    };
    retry_mark mark_retried(std::string_view request_id, const core::deadline& until);

    static constexpr std::size_t slots = 4096;
    static constexpr std::size_t probes = 32;  // the neighbourhood a request id's entry may take
    static constexpr std::size_t id_capacity = 64;
    static constexpr std::size_t start_capacity = 48;

private:
    enum class state : std::uint8_t { free, first, retried };
    struct entry {
        state is = state::free;
        std::uint8_t id_size = 0;
        std::array<char, id_capacity> id{};
        std::int64_t expires = 0;  // steady clock, nanoseconds: the call's deadline
        int backend_pid = 0;
        std::uint8_t start_size = 0;
        std::array<char, start_capacity> backend_start{};
    };

    entry* find(std::string_view request_id, std::int64_t now);
    entry* free_slot(std::string_view request_id, std::int64_t now);
    static bool fits(std::string_view request_id, const backend_identity* backend);
    static void fill(entry& e, state is, std::string_view request_id, std::int64_t expires,
                     const backend_identity* backend);

    // Taken over from a worker that died holding it: each change stores an entry's state last, so
    // what the dead worker left is a whole entry or none.
    core::process_shared_mutex m_mutex;
    std::int64_t m_all_locked_until = 0;  // a mark that found no room: every first attempt locks until then
    std::array<entry, slots> m_entries{};
};

}  // namespace keeper::db
