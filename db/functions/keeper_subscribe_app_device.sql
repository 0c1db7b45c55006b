-- keeper_subscribe_app_device: SubscribeAppWithTagAndLocale's transaction for an enabled
-- application: the guard against guessing, then the subscription. p_proven: the worker found
-- authHash right for the application's secret. The guard counts the failures of the pair it
-- names, (application, userId), as Authenticate's counts a login's: with p_max_failures of them
-- in the window the answer is 11 whatever the hash said, and 11 is not itself a failure; a success
-- forgives the pair's failures. Never by the client's address, which thousands of phones share
-- behind a carrier's NAT (docs/api-decisions.md, "Sessions and applications"). The pair's advisory
-- lock (classid 4) makes its calls count in turn.
-- The failure count must stay an index range scan whatever the statistics say (enable_seqscan
-- off, as keeper_authenticate; docs/schema.md, "Functions").
CREATE OR REPLACE FUNCTION keeper_subscribe_app_device(p_call keeper_call, p_app_id text, p_user_id text,
                                            p_provider text, p_push_user text, p_tag integer, p_locale integer,
                                            p_proven boolean, p_window_seconds integer, p_max_failures integer)
RETURNS integer LANGUAGE plpgsql SET enable_seqscan = off AS $$
DECLARE
    v_since timestamptz := now() - p_window_seconds * interval '1 second';
    v_failures integer;
BEGIN
    IF keeper_claim_needed(p_call) THEN PERFORM keeper_claim(p_call); END IF;
    PERFORM pg_advisory_xact_lock(4, hashtext(p_app_id || ':' || p_user_id));
    SELECT count(*) INTO v_failures FROM app_auth_failures
     WHERE app_id = p_app_id AND user_id = p_user_id AND failed_at > v_since;
    IF v_failures >= p_max_failures THEN
        RETURN keeper_audit(p_call, NULL, NULL, p_app_id, keeper_result('too_many_attempts'));
    END IF;
    IF NOT p_proven THEN
        DELETE FROM app_auth_failures WHERE app_id = p_app_id AND user_id = p_user_id AND failed_at <= v_since;
        INSERT INTO app_auth_failures (app_id, user_id) VALUES (p_app_id, p_user_id);
        RETURN keeper_audit(p_call, NULL, NULL, p_app_id, keeper_result('auth_failed'));
    END IF;
    IF v_failures > 0 THEN
        DELETE FROM app_auth_failures WHERE app_id = p_app_id AND user_id = p_user_id;  -- forgiven
    END IF;
    INSERT INTO app_push_subscriptions (provider, push_service_user_id, app_id, user_id, tag, locale)
    VALUES (p_provider, p_push_user, p_app_id, p_user_id, p_tag, p_locale)
    ON CONFLICT (provider, push_service_user_id) DO UPDATE SET app_id = EXCLUDED.app_id, user_id = EXCLUDED.user_id,
        tag = EXCLUDED.tag, locale = EXCLUDED.locale, updated_at = now();
    RETURN keeper_audit(p_call, NULL, NULL, p_app_id, keeper_result('ok'));
END $$;
COMMENT ON FUNCTION keeper_subscribe_app_device(keeper_call, text, text, text, text, integer, integer, boolean, integer, integer) IS
    'SubscribeAppWithTagAndLocale for an enabled application: 11 with p_max_failures failures of (p_app_id, p_user_id) in p_window_seconds; a failure recorded when p_proven is false (4); else the pair''s failures forgiven and the subscription. p_proven: the worker found authHash right for the application''s secret.';
