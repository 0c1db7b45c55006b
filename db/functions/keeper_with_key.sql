-- keeper_with_key: hands a call's Idempotency-Key to keeper_audit.
-- Every write statement of the workers calls its function on the row this one returns
-- (db/store/statements.hpp: `SELECT keeper_topup(k, ...) FROM keeper_with_key($1, ...) AS k`):
-- taking the request id from here makes PostgreSQL run this first. The key and the fingerprint
-- are set for the statement's transaction only (set_config's is_local), so they end with it; a
-- call without a key sets nothing, and keeper_audit then writes the audit row alone.
CREATE OR REPLACE FUNCTION keeper_with_key(p_request_id text, p_key text, p_fingerprint text)
RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    IF p_key <> '' THEN
        PERFORM set_config('keeper.idempotency_key', p_key, true),
                set_config('keeper.idempotency_fingerprint', p_fingerprint, true);
    END IF;
    RETURN p_request_id;
END $$;
COMMENT ON FUNCTION keeper_with_key(text, text, text) IS
    'Sets the call''s Idempotency-Key and parameter fingerprint for its transaction (read by keeper_audit) and returns the request id, which the call''s function takes from it.';
