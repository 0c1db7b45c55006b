-- keeper_subscribe_app_device: SubscribeAppWithTagAndLocale, once the worker has checked the application's authHash.
CREATE OR REPLACE FUNCTION keeper_subscribe_app_device(p_call keeper_call, p_app_id text, p_user_id text,
                                            p_provider text, p_push_user text, p_tag integer, p_locale integer)
RETURNS integer LANGUAGE plpgsql AS $$
BEGIN
    PERFORM keeper_claim(p_call);
    INSERT INTO app_push_subscriptions (provider, push_service_user_id, app_id, user_id, tag, locale)
    VALUES (p_provider, p_push_user, p_app_id, p_user_id, p_tag, p_locale)
    ON CONFLICT (provider, push_service_user_id) DO UPDATE SET app_id = EXCLUDED.app_id, user_id = EXCLUDED.user_id,
        tag = EXCLUDED.tag, locale = EXCLUDED.locale, updated_at = now();
    RETURN keeper_audit(p_call, NULL, NULL, p_app_id, keeper_result('ok'));
END $$;
COMMENT ON FUNCTION keeper_subscribe_app_device(keeper_call, text, text, text, text, integer, integer) IS
    'SubscribeAppWithTagAndLocale once the worker has checked authHash against the application''s secret.';
