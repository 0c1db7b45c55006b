-- keeper_set_account_permits: SetAccountPermits: the login's three flags, replaced.
CREATE OR REPLACE FUNCTION keeper_set_account_permits(p_request_id text, p_operation text, p_session text, p_ttl_seconds integer,
                                           p_payments boolean, p_invoices boolean, p_messages boolean,
                                           p_key text, p_fingerprint text, p_key_used boolean)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
    s record := keeper_session(p_session, p_ttl_seconds);
BEGIN
    IF s.code = 0 THEN
        INSERT INTO account_permits (login_id, accept_payments, accept_invoices, accept_messages)
        VALUES (s.login_id, p_payments, p_invoices, p_messages)
        ON CONFLICT (login_id) DO UPDATE SET accept_payments = EXCLUDED.accept_payments,
            accept_invoices = EXCLUDED.accept_invoices, accept_messages = EXCLUDED.accept_messages, updated_at = now();
    END IF;
    RETURN keeper_audit(p_request_id, p_operation, s.login, NULL, s.code, p_key, p_fingerprint, p_key_used);
END $$;
COMMENT ON FUNCTION keeper_set_account_permits(text, text, text, integer, boolean, boolean, boolean, text, text, boolean) IS 'SetAccountPermits.';
