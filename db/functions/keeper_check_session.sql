-- keeper_check_session: CheckSessionEx.
CREATE OR REPLACE FUNCTION keeper_check_session(p_request_id text, p_operation text, p_session text, p_ttl_seconds integer,
                                     p_app_id text)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
    s record := keeper_session(p_session, p_ttl_seconds);
BEGIN
    IF s.code <> 0 THEN
        RETURN keeper_audit(p_request_id, p_operation, s.login, NULL, s.code);
    END IF;
    RETURN keeper_audit(p_request_id, p_operation, s.login, p_app_id,
        CASE WHEN EXISTS (SELECT 1 FROM applications WHERE app_id = p_app_id AND enabled) THEN 0 ELSE 10 END);
END $$;
COMMENT ON FUNCTION keeper_check_session(text, text, text, integer, text) IS 'CheckSessionEx.';
