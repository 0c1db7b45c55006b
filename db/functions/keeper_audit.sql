-- keeper_audit: A call's audit row, written in the call's own transaction. Every call's
-- transaction ends here, with its caller and result known, so this is also where a call's
-- Idempotency-Key is recorded or its repeat recognised (keeper_idempotency; the key is set for
-- the transaction by keeper_with_key).
CREATE OR REPLACE FUNCTION keeper_audit(p_request_id text, p_operation text, p_login text, p_app_id text, p_result integer)
RETURNS integer LANGUAGE plpgsql AS $$
BEGIN
    IF current_setting('keeper.idempotency_key', true) <> '' THEN
        PERFORM keeper_idempotency(p_request_id, p_operation, p_login, p_app_id, p_result);
    END IF;
    INSERT INTO audit_log (login, app_id, operation, result, request_id)
    VALUES (p_login, p_app_id, p_operation, p_result, p_request_id);
    RETURN p_result;
END $$;
COMMENT ON FUNCTION keeper_audit(text, text, text, text, integer) IS
    'Writes a call''s audit row (and, with an Idempotency-Key, its key row through keeper_idempotency) and returns its result. Called alone for calls refused before any other database work (wrong authHash).';
