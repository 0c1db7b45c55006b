-- keeper_claim: The first statement of every call's transaction: once one attempt of a call (one
-- request id) has committed, no other does anything (docs/design.md, "In-doubt calls"). nginx
-- sends a call again when the connection that carried it broke, and a connection breaks also
-- while its worker lives (a reset by a middlebox, a keepalive, a host's network): the first
-- attempt may then still run, or not yet have started.
-- A call /call-outcome answered "none" for commits nothing (docs/design.md, "A call decided as not
-- applied"): an attempt that comes here a second or more after the call's time takes the call's
-- lock (waiting for a look that holds it) and then, a statement later, so that it sees every
-- decision made before, looks for the call in decided_calls; found, it raises KD002 and changes
-- nothing. No decision is made while it holds the lock, and a look decides nothing younger than
-- 2 s, so a younger attempt has nothing to find and does not look.
-- A first attempt whose host vouches for it (p_call.host_recorded) comes here only so late, and
-- takes the lock shared (attempts of one call do not wait for each other for it): its worker
-- recorded it, with the server process that runs it, in the host's record of calls in flight
-- before it sent this statement (db/store/call_record.hpp), and nginx sends a call again only
-- to the host that had it, where the retry marks the call there, ends that server process and
-- waits until it is gone before it looks for the call's audit row; a first attempt that finds the
-- mark does not begin unvouched. So the common call does not come here at all: every operation's
-- function calls this only when keeper_claim_needed says so, a check it inlines.
-- Every other attempt (a retry, a first attempt that found its call marked or no room in the
-- record, a call with a client's trace, the previous release's workers) takes the call's lock, a
-- transaction advisory lock on the request id's 64-bit hash (the bigint key space, apart from the
-- (int, int) keys of logins and cards), which also names the attempt that holds it in pg_locks. A
-- retry first lists its request id in retried_calls and then ends whichever process holds the
-- lock (statements.hpp, mark_retried and claim_holders). So a locking attempt that finds its call
-- unlisted, with the lock in hand, has no other attempt that committed: had a retry listed the
-- call before this attempt took the lock, the attempt would see it; had it listed the call after,
-- the retry would end this attempt or find its commit. Only a listed call's attempt looks for the
-- call's audit row: found, it raises SQLSTATE KC2nn (nn the recorded result) and changes
-- nothing. The look is keeper_call_outcome's (the workers may not read audit_log), and it stays
-- off the path of every other call: reading audit_log locks each of its partitions.
-- An attempt that begins here after its call's deadline changes nothing (SQLSTATE KD001, "not
-- applied"): the deadline is the frame's (the request id's time, nginx's, plus call_budget_ms:
-- the worker passes it with the call), compared with the database's clock. The worker checks the
-- deadline before it sends a statement; this holds also for a worker stopped between the check
-- and the send (a frozen host), so that "none" from /call-outcome stays true. A frame without
-- one (the previous release's workers) is not checked.
-- While a call of a client's trace runs, its server process is named for the trace in
-- pg_stat_activity and in the server's log lines (%a of log_line_prefix): application_name
-- 'keeper-fcgi trace=<trace id>', set for this transaction only, so the connection's own name
-- (the worker's, db/store/backend_ending.cpp) is back once it ends. One set_config in a function
-- the call runs anyway, a few microseconds; a comment in the statement's text (sqlcommenter)
-- would make every call's text unique and unpreparable, a quarter of the database's work on a
-- short call (bench/history.md). A trace nginx started (its id the request id) and a
-- call without a trace id (the previous release's workers) leave the name alone. A call so
-- renamed is never one its host vouches for: a retry finds the server processes a dead worker
-- left by their name (db/store/backend_ending.hpp), so a renamed one must hold the lock instead.
CREATE OR REPLACE FUNCTION keeper_claim(p_call keeper_call)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    v_recorded integer;
BEGIN
    IF clock_timestamp() > p_call.deadline THEN
        RAISE EXCEPTION 'keeper: the call''s deadline passed before it began here' USING ERRCODE = 'KD001';
    END IF;
    IF p_call.host_recorded THEN
        -- A second old or more (keeper_claim_needed): the lock, held to the commit, then the look.
        PERFORM pg_advisory_xact_lock_shared(hashtextextended(p_call.request_id, 0));
        IF EXISTS (SELECT 1 FROM decided_calls WHERE request_id = p_call.request_id) THEN
            RAISE EXCEPTION 'keeper: /call-outcome answered "none" for this call' USING ERRCODE = 'KD002';
        END IF;
        RETURN;
    END IF;
    IF p_call.trace_id <> '' AND p_call.trace_id <> p_call.request_id THEN
        PERFORM set_config('application_name', 'keeper-fcgi trace=' || p_call.trace_id, true);
    END IF;
    PERFORM pg_advisory_xact_lock(hashtextextended(p_call.request_id, 0));
    IF keeper_call_older_than(p_call.request_id, interval '1 second') AND
       EXISTS (SELECT 1 FROM decided_calls WHERE request_id = p_call.request_id) THEN
        RAISE EXCEPTION 'keeper: /call-outcome answered "none" for this call' USING ERRCODE = 'KD002';
    END IF;
    IF NOT EXISTS (SELECT 1 FROM retried_calls WHERE request_id = p_call.request_id) THEN
        RETURN;
    END IF;
    v_recorded := keeper_call_outcome(p_call.request_id);
    IF v_recorded IS NOT NULL THEN
        RAISE EXCEPTION 'keeper: this call was recorded before, result=%', v_recorded
            USING ERRCODE = 'KC2' || lpad(v_recorded::text, 2, '0');
    END IF;
END $$;
COMMENT ON FUNCTION keeper_claim(keeper_call) IS
    'Refuses an attempt begun after its call''s deadline (KD001); for an attempt its host vouches for (here only a second or more after the call''s time), takes the call''s lock shared; any attempt a second old or more of a call /call-outcome decided raises KD002; for one it does not vouch for (host_recorded), names the call''s server process for a client''s trace (application_name, for this transaction), takes the call''s lock (an advisory lock on its request id''s hash) and, for a call nginx sent again (in retried_calls), raises KC2nn when the call''s audit row is already there (nn its result): every operation''s function calls it first.';
