-- keeper_session_refusal: the answer to a call whose write found no valid session
-- (keeper_valid_session): its audit row with 2 (unknown) or 3 (expired), and that code. NULL
-- when keeper_session finds the session valid after all (an Authenticate committed between the
-- write's statement and this one): the caller then runs its write again, so that what it answers
-- is always what it did. Only such a call pays for this second look at the session.
CREATE OR REPLACE FUNCTION keeper_session_refusal(p_call keeper_call, p_session_hash bytea, p_ttl_seconds integer)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
    s record;
BEGIN
    SELECT * INTO s FROM keeper_session(p_session_hash, p_ttl_seconds);
    IF s.code = keeper_result('ok') THEN
        RETURN NULL;
    END IF;
    RETURN keeper_audit(p_call, s.login_id, NULL, NULL, s.code);
END $$;
COMMENT ON FUNCTION keeper_session_refusal(keeper_call, bytea, integer) IS
    'For a write that found no valid session: audits and returns 2 or 3, or returns NULL when the session is valid now (the write runs again).';
