-- A first attempt its host vouches for takes no lock (docs/design.md, "In-doubt calls"): the
-- worker recorded the attempt, with the server process that runs it, in its host's record of
-- calls in flight (db/store/calls_in_flight.hpp) before it sent the statement, and nginx sends a
-- call again only to the host that had it, whose retry finds the attempt there and ends its
-- server process. Such a call's frame says so (host_recorded true), and keeper_claim then skips
-- the call's lock and the retried_calls probe that every attempt paid before. NULL (the previous
-- release's workers, a call by hand) and false take the claim as before.
ALTER TYPE keeper_call ADD ATTRIBUTE host_recorded boolean;
COMMENT ON TYPE keeper_call IS 'The frame of a call that writes an audit row: request id, operation, Idempotency-Key, fingerprint, key_used, trace id, deadline, host_recorded. First argument of every operation''s function; read by keeper_claim and keeper_audit.';
