-- keeper_set_account_permits: SetAccountPermits: the login's three flags, replaced.
-- The upsert reads the session itself (keeper_valid_session), so a call with a valid session runs
-- one statement; one that wrote nothing is answered by keeper_session_refusal (2 or 3), or runs
-- its write again should the session be valid by then.
CREATE OR REPLACE FUNCTION keeper_set_account_permits(p_call keeper_call, p_session_hash bytea, p_ttl_seconds integer,
                                           p_payments boolean, p_invoices boolean, p_messages boolean)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
    v_login_id bigint;
    v_refused integer;
BEGIN
    IF keeper_claim_needed(p_call) THEN PERFORM keeper_claim(p_call); END IF;
    LOOP
        INSERT INTO account_permits (login_id, accept_payments, accept_invoices, accept_messages)
        SELECT v.login_id, p_payments, p_invoices, p_messages FROM keeper_valid_session(p_session_hash, p_ttl_seconds) v
        ON CONFLICT (login_id) DO UPDATE SET accept_payments = EXCLUDED.accept_payments,
            accept_invoices = EXCLUDED.accept_invoices, accept_messages = EXCLUDED.accept_messages, updated_at = now()
        RETURNING login_id INTO v_login_id;
        EXIT WHEN FOUND;
        v_refused := keeper_session_refusal(p_call, p_session_hash, p_ttl_seconds);
        IF v_refused IS NOT NULL THEN
            RETURN v_refused;
        END IF;
    END LOOP;
    RETURN keeper_audit(p_call, v_login_id, NULL, NULL, keeper_result('ok'));
END $$;
COMMENT ON FUNCTION keeper_set_account_permits(keeper_call, bytea, integer, boolean, boolean, boolean) IS 'SetAccountPermits.';
