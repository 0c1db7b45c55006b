#pragma once
// The host's record of the write calls in flight (db/store/call_record.hpp says what it answers),
// in memory every worker process of the pool shares: one object in the shared mapping
// (pool/shared_memory.hpp), made by the supervisor before it forks, so that every worker, and every
// replacement, sees it; a worker killed inside the lock does not wedge it (a robust mutex). Each
// entry lives at most until its call's deadline: after that no attempt of the call begins, and no
// retry of it settles anything. Its virtual functions are safe in the shared mapping: the workers
// are forked from the process that made it and run its code at the same addresses.
#include <array>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string_view>

#include "core/domain/deadline.hpp"
#include "db/store/call_record.hpp"
#include "process_shared_mutex.hpp"

namespace keeper::pool {

class calls_in_flight final : public db::call_record {
public:
    calls_in_flight() = default;  // in the shared mapping, before fork

    bool begin_first(std::string_view request_id, const db::backend_identity& backend,
                     const core::deadline& until) override;
    void end_first(std::string_view request_id) override;
    retry_mark mark_retried(std::string_view request_id, const core::deadline& until) override;

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
    static bool fits(std::string_view request_id, const db::backend_identity* backend);
    static void fill(entry& e, state is, std::string_view request_id, std::int64_t expires,
                     const db::backend_identity* backend);

    // Taken over from a worker that died holding it: each change stores an entry's state last, so
    // what the dead worker left is a whole entry or none.
    process_shared_mutex m_mutex;
    std::int64_t m_all_locked_until = 0;  // a mark that found no room: every first attempt locks until then
    std::array<entry, slots> m_entries{};
};

}  // namespace keeper::pool
