-- keeper_set_contact_permits: SetContactPermitsEx: the four flags for (login, wmid), replaced.
-- The session is read in the upsert, as in keeper_set_account_permits (which says why).
CREATE OR REPLACE FUNCTION keeper_set_contact_permits(p_call keeper_call, p_session_hash bytea, p_ttl_seconds integer,
                                           p_wmid text, p_payments boolean, p_invoices boolean, p_messages boolean,
                                           p_dont_use_confirmation boolean)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
    v_login_id bigint;
    v_refused integer;
BEGIN
    IF keeper_claim_needed(p_call) THEN PERFORM keeper_claim(p_call); END IF;
    LOOP
        INSERT INTO contact_permits (login_id, wmid, accept_payments, accept_invoices, accept_messages, dont_use_confirmation)
        SELECT v.login_id, p_wmid, p_payments, p_invoices, p_messages, p_dont_use_confirmation
          FROM keeper_valid_session(p_session_hash, p_ttl_seconds) v
        ON CONFLICT (login_id, wmid) DO UPDATE SET accept_payments = EXCLUDED.accept_payments,
            accept_invoices = EXCLUDED.accept_invoices, accept_messages = EXCLUDED.accept_messages,
            dont_use_confirmation = EXCLUDED.dont_use_confirmation, updated_at = now()
        RETURNING login_id INTO v_login_id;
        EXIT WHEN FOUND;
        v_refused := keeper_session_refusal(p_call, p_session_hash, p_ttl_seconds);
        IF v_refused IS NOT NULL THEN
            RETURN v_refused;
        END IF;
    END LOOP;
    RETURN keeper_audit(p_call, v_login_id, NULL, NULL, keeper_result('ok'));
END $$;
COMMENT ON FUNCTION keeper_set_contact_permits(keeper_call, bytea, integer, text, boolean, boolean, boolean, boolean) IS
    'SetContactPermitsEx.';
