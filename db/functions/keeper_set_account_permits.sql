-- keeper_set_account_permits: SetAccountPermits: the login's three flags, replaced.
CREATE OR REPLACE FUNCTION keeper_set_account_permits(p_call keeper_call, p_session_hash bytea, p_ttl_seconds integer,
                                           p_payments boolean, p_invoices boolean, p_messages boolean)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
    s record;
BEGIN
    IF keeper_claim_needed(p_call) THEN PERFORM keeper_claim(p_call); END IF;
    SELECT * INTO s FROM keeper_session(p_session_hash, p_ttl_seconds);
    IF s.code = keeper_result('ok') THEN
        INSERT INTO account_permits (login_id, accept_payments, accept_invoices, accept_messages)
        VALUES (s.login_id, p_payments, p_invoices, p_messages)
        ON CONFLICT (login_id) DO UPDATE SET accept_payments = EXCLUDED.accept_payments,
            accept_invoices = EXCLUDED.accept_invoices, accept_messages = EXCLUDED.accept_messages, updated_at = now();
    END IF;
    RETURN keeper_audit(p_call, s.login_id, NULL, NULL, s.code);
END $$;
COMMENT ON FUNCTION keeper_set_account_permits(keeper_call, bytea, integer, boolean, boolean, boolean) IS 'SetAccountPermits.';
