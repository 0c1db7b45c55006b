-- keeper_subscribe_device: SubscribeWithTagAndLocale: a device that moves to another login moves.
-- The session is read in the upsert, as in keeper_set_account_permits (which says why).
CREATE OR REPLACE FUNCTION keeper_subscribe_device(p_call keeper_call, p_session_hash bytea, p_ttl_seconds integer,
                                        p_provider text, p_push_user text, p_tag integer, p_locale integer)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
    v_login_id bigint;
    v_refused integer;
BEGIN
    IF keeper_claim_needed(p_call) THEN PERFORM keeper_claim(p_call); END IF;
    LOOP
        INSERT INTO push_subscriptions (provider, push_service_user_id, login_id, tag, locale)
        SELECT p_provider, p_push_user, v.login_id, p_tag, p_locale FROM keeper_valid_session(p_session_hash, p_ttl_seconds) v
        ON CONFLICT (provider, push_service_user_id) DO UPDATE SET login_id = EXCLUDED.login_id, tag = EXCLUDED.tag,
            locale = EXCLUDED.locale, updated_at = now()
        RETURNING login_id INTO v_login_id;
        EXIT WHEN FOUND;
        v_refused := keeper_session_refusal(p_call, p_session_hash, p_ttl_seconds);
        IF v_refused IS NOT NULL THEN
            RETURN v_refused;
        END IF;
    END LOOP;
    RETURN keeper_audit(p_call, v_login_id, NULL, NULL, keeper_result('ok'));
END $$;
COMMENT ON FUNCTION keeper_subscribe_device(keeper_call, bytea, integer, text, text, integer, integer) IS
    'SubscribeWithTagAndLocale: the device moves to this login if another had it.';
