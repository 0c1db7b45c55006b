-- keeper_audit: A call's audit row, written in the call's own transaction.
CREATE OR REPLACE FUNCTION keeper_audit(p_request_id text, p_operation text, p_login text, p_app_id text, p_result integer)
RETURNS integer LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO audit_log (login, app_id, operation, result, request_id)
    VALUES (p_login, p_app_id, p_operation, p_result, p_request_id);
    RETURN p_result;
END $$;
COMMENT ON FUNCTION keeper_audit(text, text, text, text, integer) IS
    'Writes a call''s audit row and returns its result. Called alone for calls refused before any other database work (wrong authHash).';
