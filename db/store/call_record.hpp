#pragma once
// The host's record of the write calls in flight, as the call executor uses it: which server
// process runs a call's first attempt, and which calls nginx has sent again (docs/design.md,
// "In-doubt calls"). nginx, and a front, send a call again only to the host that had it, so the
// host knows every attempt of every call it was given. A first attempt found here is one the retry
// can end without the call's lock in the database: a first attempt takes that lock only when its
// host cannot vouch for it. The pool keeps the record in memory its processes share
// (pool/calls_in_flight.hpp); a store without one takes the lock for every attempt.
#include <optional>
#include <string_view>

#include "core/domain/deadline.hpp"
#include "db/store/backend_identity.hpp"

namespace keeper::db {

class call_record {
public:
    // Before a first attempt's statement is sent on the connection of `backend`: true when the
    // attempt is recorded, so it may skip the call's lock; false when the call was sent again
    // already, or there is no room: the attempt then takes the lock as a retry does.
    virtual bool begin_first(std::string_view request_id, const backend_identity& backend,
                             const core::deadline& until) = 0;
    // After its statement answered or failed: the entry goes, unless a retry has marked the call,
    // whose mark stays until the deadline for the attempts still to come.
    virtual void end_first(std::string_view request_id) = 0;
    // A retry, before it settles anything: marks the call as sent again, so that no first attempt of
    // it begins unlocked from now on, and answers the server process of a first attempt in flight,
    // if one is recorded. False in `marked` only when there was no room for the mark: then every
    // first attempt takes the lock until the call's deadline.
    struct retry_mark {
        bool marked = true;
        std::optional<backend_identity> first_attempt;
    };
    virtual retry_mark mark_retried(std::string_view request_id, const core::deadline& until) = 0;

protected:
    ~call_record() = default;  // not owned through this interface
};

}  // namespace keeper::db
