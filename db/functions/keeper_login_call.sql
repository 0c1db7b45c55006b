-- keeper_login_call: A caller's look at one of its own calls, by request id (GET /call-outcome,
-- docs/api-decisions.md, "Checking a call's outcome"): the session's state, and, when the session
-- is valid, the result and time its login's call with that request id recorded, or NULLs. A call
-- is its login's when its audit row names the login, whichever session made it (a client that
-- authenticated again after losing its session still sees its calls). The workers may not read
-- audit_log, so this runs with its owner's rights and answers one request id of one login, no
-- more; only keeper_worker may run it (keeperctl roles). p_from and p_to bound the time the call
-- can have been recorded in (from its request id's time, core/pipeline/call_outcome.cpp): they prune every
-- other monthly partition.
CREATE OR REPLACE FUNCTION keeper_login_call(p_session_hash bytea, p_ttl_seconds integer, p_request_id text,
                                             p_from timestamptz, p_to timestamptz,
                                             OUT code integer, OUT result integer, OUT at text)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path FROM CURRENT AS $$
DECLARE
    s record;
BEGIN
    SELECT * INTO s FROM keeper_session(p_session_hash, p_ttl_seconds);
    code := s.code;
    IF s.code <> keeper_result('ok') THEN
        RETURN;
    END IF;
    SELECT max(a.result), to_char(max(a.at) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
      INTO result, at
      FROM audit_log a
     WHERE a.request_id = p_request_id AND a.login_id = s.login_id AND a.at BETWEEN p_from AND p_to;
END $$;
REVOKE ALL ON FUNCTION keeper_login_call(bytea, integer, text, timestamptz, timestamptz) FROM PUBLIC;
COMMENT ON FUNCTION keeper_login_call(bytea, integer, text, timestamptz, timestamptz) IS
    'A session''s look at one of its login''s calls by request id: code 0 with the recorded result and time (NULLs when there is no such call between p_from and p_to), or the session''s code (2, 3).';
