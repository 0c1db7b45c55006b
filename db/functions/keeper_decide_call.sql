-- keeper_decide_call: A caller's look at one of its own calls by request id (GET /call-outcome,
-- docs/api-decisions.md, "Checking a call's outcome"), which decides the call once it may: code is
-- the session's (2, 3: nothing else is answered); outcome is 'recorded' (with the result and UTC
-- time its login's audit row holds), 'none' or 'pending' (wait_ms: how long to wait before asking
-- again). A call is its login's when its audit row names the login, whichever session made it.
-- "none" is a fact this function makes (docs/design.md, "A call decided as not applied"): with the
-- call's lock in hand, so that no attempt of the call is between its first statement and its
-- commit, and finding no audit row, it lists the request id in decided_calls; an attempt that takes
-- the lock afterwards sees the listing and rolls back (keeper_audit, KD002). It decides only from
-- p_final on, by the database's clock (the worker's estimate of when an attempt that began in time
-- has ended, core/pipeline/call_outcome.cpp), so that a slow call is not cut short by a client's
-- early look, and never a call nginx first saw less than 2 s ago, whatever p_final says: an
-- attempt younger than a second does not look for a decision (keeper_audit, keeper_call_older_than).
-- Before that, and while an attempt holds the lock, it answers 'pending'.
-- Whatever it answers besides 'pending' it commits with a WAL message of its own, so that under
-- synchronous replication the commit returns only once the standby holds the decision and every
-- commit before it, the recorded call's among them: read and acknowledged on one server, in one
-- transaction (a worker told the commit's wait was cut answers 'pending', db/store/pg_store.cpp).
-- The workers may not read audit_log, so this runs with its owner's rights and answers one request
-- id of one login, no more; only keeper_worker may run it (keeperctl roles). p_from bounds the
-- time the call can have been recorded in from below, a day before its request id's time, so that
-- a clock of the database behind nginx's by less than that still finds the row; it prunes older
-- monthly partitions. VOLATILE: each statement reads what committed before it, the audit row read
-- after the lock among them.
CREATE OR REPLACE FUNCTION keeper_decide_call(p_session_hash bytea, p_ttl_seconds integer, p_request_id text,
                                              p_from timestamptz, p_final timestamptz,
                                              OUT code integer, OUT outcome text, OUT result integer, OUT at text,
                                              OUT wait_ms integer)
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path FROM CURRENT AS $$
DECLARE
    s record;
BEGIN
    SELECT * INTO s FROM keeper_session(p_session_hash, p_ttl_seconds);
    code := s.code;
    IF s.code <> keeper_result('ok') THEN
        RETURN;
    END IF;
    wait_ms := least(greatest(ceil(extract(epoch FROM p_final - clock_timestamp()) * 1000), 0), 3600000);
    IF NOT pg_try_advisory_xact_lock(hashtextextended(p_request_id, 0)) THEN
        outcome := 'pending';  -- an attempt is between its first statement and its commit
        wait_ms := greatest(wait_ms, 1000);
        RETURN;
    END IF;
    SELECT max(a.result), to_char(max(a.at) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
      INTO result, at
      FROM audit_log a
     WHERE a.request_id = p_request_id AND a.login_id = s.login_id AND a.at >= p_from;
    IF result IS NOT NULL THEN
        outcome := 'recorded';
    ELSIF EXISTS (SELECT 1 FROM decided_calls d WHERE d.request_id = p_request_id) THEN
        outcome := 'none';
    ELSIF wait_ms > 0 OR NOT keeper_call_older_than(p_request_id, interval '2 seconds') THEN
        outcome := 'pending';  -- before the final time; never a call younger than 2 s (keeper_audit)
        wait_ms := greatest(wait_ms, 1000);
        RETURN;
    ELSE
        INSERT INTO decided_calls (request_id) VALUES (p_request_id) ON CONFLICT DO NOTHING;
        outcome := 'none';
    END IF;
    wait_ms := 0;
    PERFORM pg_logical_emit_message(true, 'keeper', p_request_id);
END $$;
REVOKE ALL ON FUNCTION keeper_decide_call(bytea, integer, text, timestamptz, timestamptz) FROM PUBLIC;
COMMENT ON FUNCTION keeper_decide_call(bytea, integer, text, timestamptz, timestamptz) IS
    'A session''s look at one of its login''s calls by request id: the session''s code; with a valid session ''recorded'' (result, time), ''none'' (decided: listed in decided_calls under the call''s lock, from p_final on) or ''pending'' (wait_ms). Commits what it answers with a WAL message, so the answer waits for the synchronous standby.';
