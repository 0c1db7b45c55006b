-- keeper_check_session: CheckSessionEx.
CREATE OR REPLACE FUNCTION keeper_check_session(p_call keeper_call, p_session_hash bytea, p_ttl_seconds integer,
                                     p_app_id text)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
    s record;
BEGIN
    IF keeper_claim_needed(p_call) THEN PERFORM keeper_claim(p_call); END IF;
    SELECT * INTO s FROM keeper_session(p_session_hash, p_ttl_seconds);
    IF s.code <> keeper_result('ok') THEN
        RETURN keeper_audit(p_call, s.login_id, NULL, NULL, s.code);
    END IF;
    RETURN keeper_audit(p_call, s.login_id, NULL, p_app_id,
        CASE WHEN EXISTS (SELECT 1 FROM applications WHERE app_id = p_app_id AND enabled) THEN keeper_result('ok') ELSE keeper_result('unknown_application') END);
END $$;
COMMENT ON FUNCTION keeper_check_session(keeper_call, bytea, integer, text) IS 'CheckSessionEx.';
