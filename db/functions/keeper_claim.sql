-- keeper_claim: The first statement of every call's transaction: the attempts of one call (one
-- request id) run one at a time, and once one has committed no other does anything
-- (docs/design.md, "In-doubt calls"). nginx sends a call again when the connection that carried it
-- broke, and a connection breaks also while its worker lives (a reset by a middlebox, a keepalive,
-- a host's network): the first attempt may then still run, or not yet have started. So each
-- attempt takes the call's lock, a transaction advisory lock on the request id's 64-bit hash (the
-- bigint key space, apart from the (int, int) keys of logins and cards), and then looks for the
-- call's audit row. Found, the attempt raises SQLSTATE KC2nn (nn the recorded result) and its
-- transaction changes nothing. The lock also names the attempt that holds it in pg_locks, so a
-- retry can end exactly that server process (statements.hpp, claim_holders).
-- The look-up is keeper_call_outcome's: the workers may not read audit_log themselves.
CREATE OR REPLACE FUNCTION keeper_claim(p_call keeper_call)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    v_recorded integer;
BEGIN
    PERFORM pg_advisory_xact_lock(hashtextextended(p_call.request_id, 0));
    v_recorded := keeper_call_outcome(p_call.request_id);
    IF v_recorded IS NOT NULL THEN
        RAISE EXCEPTION 'keeper: this call was recorded before, result=%', v_recorded
            USING ERRCODE = 'KC2' || lpad(v_recorded::text, 2, '0');
    END IF;
END $$;
COMMENT ON FUNCTION keeper_claim(keeper_call) IS
    'Takes the call''s lock (an advisory lock on its request id''s hash) and raises KC2nn when the call''s audit row is already there (nn its result): every operation''s function calls it first.';
