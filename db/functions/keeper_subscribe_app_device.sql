-- keeper_subscribe_app_device: SubscribeAppWithTagAndLocale's transaction: the throttle, then
-- the subscription. p_proven: the worker found authHash right for the application's secret
-- (unknown and disabled applications are never proven). The throttle counts a client's failures
-- (p_client: an IPv4 address or an IPv6 /64, core/domain/client_block.hpp), per application and in
-- all: with p_max_failures of them for this application, or p_client_max_failures for any, in the
-- window, the answer is 11 whatever the hash said, and 11 is not itself a failure. Never per
-- application alone: its appId is public, and one who sends wrong hashes would then hold every
-- user of the application at 11 (docs/api-decisions.md, "Sessions and applications"). The
-- client's advisory lock (classid 4) makes one client's calls count its failures in turn. Unlike
-- a login's, a client's failures are not forgiven by a success: a right hash of its own would
-- otherwise let its guesses go on without end.
-- The failure counts must stay index range scans whatever the statistics say (enable_seqscan
-- off, as keeper_authenticate; docs/schema.md, "Functions").
CREATE OR REPLACE FUNCTION keeper_subscribe_app_device(p_call keeper_call, p_app_id text, p_user_id text,
                                            p_provider text, p_push_user text, p_tag integer, p_locale integer,
                                            p_proven boolean, p_client text, p_window_seconds integer,
                                            p_max_failures integer, p_client_max_failures integer)
RETURNS integer LANGUAGE plpgsql SET enable_seqscan = off AS $$
DECLARE
    v_since timestamptz := now() - p_window_seconds * interval '1 second';
BEGIN
    IF keeper_claim_needed(p_call) THEN PERFORM keeper_claim(p_call); END IF;
    PERFORM pg_advisory_xact_lock(4, hashtext(p_client));
    IF (SELECT count(*) FROM app_auth_failures
         WHERE app_id = p_app_id AND client = p_client AND failed_at > v_since) >= p_max_failures
       OR (SELECT count(*) FROM app_auth_failures
            WHERE client = p_client AND failed_at > v_since) >= p_client_max_failures THEN
        RETURN keeper_audit(p_call, NULL, NULL, p_app_id, keeper_result('too_many_attempts'));
    END IF;
    IF NOT p_proven THEN
        DELETE FROM app_auth_failures WHERE app_id = p_app_id AND client = p_client AND failed_at <= v_since;
        INSERT INTO app_auth_failures (app_id, client) VALUES (p_app_id, p_client);
        RETURN keeper_audit(p_call, NULL, NULL, p_app_id, keeper_result('auth_failed'));
    END IF;
    INSERT INTO app_push_subscriptions (provider, push_service_user_id, app_id, user_id, tag, locale)
    VALUES (p_provider, p_push_user, p_app_id, p_user_id, p_tag, p_locale)
    ON CONFLICT (provider, push_service_user_id) DO UPDATE SET app_id = EXCLUDED.app_id, user_id = EXCLUDED.user_id,
        tag = EXCLUDED.tag, locale = EXCLUDED.locale, updated_at = now();
    RETURN keeper_audit(p_call, NULL, NULL, p_app_id, keeper_result('ok'));
END $$;
COMMENT ON FUNCTION keeper_subscribe_app_device(keeper_call, text, text, text, text, integer, integer, boolean, text, integer, integer, integer) IS
    'SubscribeAppWithTagAndLocale: the throttle of the client p_client (11 with p_max_failures failures for this application, or p_client_max_failures for any, in p_window_seconds), a failure recorded when p_proven is false (4), else the subscription. p_proven: the worker found authHash right for the application''s secret.';
