-- keeper_subscribe_app_device: SubscribeAppWithTagAndLocale's transaction: the per-application
-- throttle, then the subscription. p_proven: the worker found authHash right for the
-- application's secret (unknown and disabled applications are never proven). As Authenticate's
-- throttle per login (keeper_authenticate): the application's advisory lock (classid 4) makes one
-- application's calls count its failures in turn; with p_max_failures failures in the window the
-- answer is 11 whatever the hash said, and 11 is not itself a failure. Unlike a login's, an
-- application's failures are not forgiven by a success: its server calls all day, and forgiving
-- would let guesses go on without end between its calls.
-- The failure count must stay an index range scan whatever the statistics say (enable_seqscan
-- off, as keeper_authenticate; docs/schema.md, "Functions").
CREATE OR REPLACE FUNCTION keeper_subscribe_app_device(p_call keeper_call, p_app_id text, p_user_id text,
                                            p_provider text, p_push_user text, p_tag integer, p_locale integer,
                                            p_proven boolean, p_window_seconds integer, p_max_failures integer)
RETURNS integer LANGUAGE plpgsql SET enable_seqscan = off AS $$
DECLARE
    v_failures integer;
BEGIN
    PERFORM keeper_claim(p_call);
    PERFORM pg_advisory_xact_lock(4, hashtext(p_app_id));
    SELECT count(*) INTO v_failures FROM app_auth_failures
     WHERE app_id = p_app_id AND failed_at > now() - p_window_seconds * interval '1 second';
    IF v_failures >= p_max_failures THEN
        RETURN keeper_audit(p_call, NULL, NULL, p_app_id, keeper_result('too_many_attempts'));
    END IF;
    IF NOT p_proven THEN
        DELETE FROM app_auth_failures
         WHERE app_id = p_app_id AND failed_at <= now() - p_window_seconds * interval '1 second';
        INSERT INTO app_auth_failures (app_id) VALUES (p_app_id);
        RETURN keeper_audit(p_call, NULL, NULL, p_app_id, keeper_result('auth_failed'));
    END IF;
    INSERT INTO app_push_subscriptions (provider, push_service_user_id, app_id, user_id, tag, locale)
    VALUES (p_provider, p_push_user, p_app_id, p_user_id, p_tag, p_locale)
    ON CONFLICT (provider, push_service_user_id) DO UPDATE SET app_id = EXCLUDED.app_id, user_id = EXCLUDED.user_id,
        tag = EXCLUDED.tag, locale = EXCLUDED.locale, updated_at = now();
    RETURN keeper_audit(p_call, NULL, NULL, p_app_id, keeper_result('ok'));
END $$;
COMMENT ON FUNCTION keeper_subscribe_app_device(keeper_call, text, text, text, text, integer, integer, boolean, integer, integer) IS
    'SubscribeAppWithTagAndLocale: the per-application throttle (11 with p_max_failures failures in p_window_seconds), a failure recorded when p_proven is false (4), else the subscription. p_proven: the worker found authHash right for the application''s secret.';
