-- keeper_decide_call: A caller's look at one of its own calls by request id (GET /call-outcome,
-- docs/api-decisions.md, "Checking a call's outcome"), which decides the call once it may: code is
-- the session's (2, 3: nothing else is answered); outcome is 'recorded' (with the result and UTC
-- time its login's audit row holds), 'none' or 'pending' (wait_ms: how long to wait before asking
-- again). A call is its login's when its audit row names the login, whichever session made it.
-- "none" is a fact this function makes (docs/design.md, "A call decided as not applied"): it lists
-- the request id in decided_calls only when no attempt of the call can still commit, and an
-- attempt that begins afterwards rolls back (keeper_claim, KD002). An attempt that began more than
-- a second after the call's time holds the call's lock, shared, to its commit
-- (keeper_claim): this takes it exclusively, without waiting, and the audit row is read
-- after it, so that a commit that gave it up is seen. One that began within that second takes no
-- lock: its transaction began before p_sent + 2 s, and p_quiet (the caller's look at
-- pg_stat_activity, made as the workers' role, which sees its own backends' transactions) says no
-- such transaction of the workers is still open, its commit's flush and its wait for the standby
-- included. It decides only from p_final on, by the database's clock (the worker's estimate of
-- when an attempt that began in time has ended, core/pipeline/call_outcome.cpp), so that a slow
-- call is not cut short by a client's early look, and never a call nginx first saw less than 2 s
-- ago, whatever p_final says: an attempt younger than a second neither locks nor looks for a
-- decision (keeper_call_older_than). Before that, and while an attempt may still commit, it
-- answers 'pending'.
-- Whatever it answers besides 'pending' it commits with a WAL message of its own, so that under
-- synchronous replication the commit returns only once the standby holds the decision and every
-- commit before it, the recorded call's among them: read and acknowledged on one server, in one
-- transaction (a worker told the commit's wait was cut answers 'pending', db/store/pg_store.cpp).
-- The workers may not read audit_log, so this runs with its owner's rights and answers one request
-- id of one login, no more; only keeper_worker may run it (keeperctl roles). The audit row is
-- searched from a day before p_sent, so that a clock of the database behind nginx's by less than
-- that still finds it; the bound prunes older monthly partitions. VOLATILE: each statement reads
-- what committed before it, the audit row read after the lock among them.
CREATE OR REPLACE FUNCTION keeper_decide_call(p_session_hash bytea, p_ttl_seconds integer, p_request_id text,
                                              p_sent timestamptz, p_final timestamptz, p_quiet boolean,
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
     WHERE a.request_id = p_request_id AND a.login_id = s.login_id AND a.at >= p_sent - interval '1 day';
    IF result IS NOT NULL THEN
        outcome := 'recorded';
    ELSIF EXISTS (SELECT 1 FROM decided_calls d WHERE d.request_id = p_request_id) THEN
        outcome := 'none';
    ELSIF wait_ms > 0 OR NOT keeper_call_older_than(p_request_id, interval '2 seconds') OR NOT p_quiet THEN
        outcome := 'pending';  -- before the final time, too young, or an attempt that began young still open
        wait_ms := greatest(wait_ms, 1000);
        RETURN;
    ELSE
        INSERT INTO decided_calls (request_id) VALUES (p_request_id) ON CONFLICT DO NOTHING;
        outcome := 'none';
    END IF;
    wait_ms := 0;
    PERFORM pg_logical_emit_message(true, 'keeper', p_request_id);
END $$;
REVOKE ALL ON FUNCTION keeper_decide_call(bytea, integer, text, timestamptz, timestamptz, boolean) FROM PUBLIC;
COMMENT ON FUNCTION keeper_decide_call(bytea, integer, text, timestamptz, timestamptz, boolean) IS
    'A session''s look at one of its login''s calls by request id: the session''s code; with a valid session ''recorded'' (result, time), ''none'' (decided: listed in decided_calls under the call''s lock, from p_final on, once no attempt that began young is open: p_quiet) or ''pending'' (wait_ms). Commits what it answers with a WAL message, so the answer waits for the synchronous standby.';
