-- keeper_refusal: a call refused before any other database work (a wrong authHash) writes only
-- its audit row, claimed as every other call's.
CREATE OR REPLACE FUNCTION keeper_refusal(p_call keeper_call, p_login_id bigint, p_login text, p_app_id text, p_result integer)
RETURNS integer LANGUAGE plpgsql AS $$
BEGIN
    IF keeper_claim_needed(p_call) THEN PERFORM keeper_claim(p_call); END IF;
    RETURN keeper_audit(p_call, p_login_id, p_login, p_app_id, p_result);
END $$;
COMMENT ON FUNCTION keeper_refusal(keeper_call, bigint, text, text, integer) IS
    'A call refused before any other database work: its claim, then its audit row (keeper_audit).';
