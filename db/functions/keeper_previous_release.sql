-- keeper_previous_release: the operations' functions under the arguments the previous release's
-- workers call them with, each passing the call on to the function of this release. An upgrade
-- migrates the schema while the old workers go on serving, and restarts them only afterwards
-- (docs/operations.md, "Restart, reload, upgrade"): until then their prepared statements call
-- these. The previous release passed the call's request id, operation, key, fingerprint and
-- key_used as separate arguments, where this release passes one keeper_call value; it passed the
-- session id, where this release's workers pass its hash (keeper_session_hash); and its code
-- confirmations passed the login's name beside its id (keeper_audit looks the name up itself when
-- a keyed call needs it). The next release's first migration drops these signatures
-- (docs/schema.md, "Releases"); tests/db/fixtures/statements-0.2.0.hpp is what those workers prepare.
-- They pass no trace id (NULL): keeper_claim then leaves their connections' application_name as
-- it is, the name by which those workers find a dead worker's server processes; and no deadline
-- (NULL): keeper_claim checks none, as those workers' functions did not.
-- PL/pgSQL, not SQL: a PL/pgSQL body is resolved when called, so this file does not depend on the
-- order in which db/functions/ is applied.

CREATE OR REPLACE FUNCTION keeper_audit(p_request_id text, p_operation text, p_login text, p_app_id text, p_result integer,
                                        p_key text DEFAULT NULL, p_fingerprint text DEFAULT NULL,
                                        p_key_used boolean DEFAULT false)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
    v_call keeper_call := ROW(p_request_id, p_operation, COALESCE(p_key, ''), COALESCE(p_fingerprint, ''), p_key_used, NULL, NULL, NULL)::keeper_call;
BEGIN
    PERFORM keeper_claim(v_call);  -- the call's lock, which keeper_audit's look at decided_calls needs
    RETURN keeper_audit(v_call, NULL, p_login, p_app_id, p_result);
END $$;
COMMENT ON FUNCTION keeper_audit(text, text, text, text, integer, text, text, boolean) IS
    'The previous release''s arguments of keeper_audit, for its workers while an upgrade runs: passes the call on as a keeper_call.';

CREATE OR REPLACE FUNCTION keeper_authenticate(p_request_id text, p_operation text, p_login text, p_session text,
                                               p_proven boolean, p_window_seconds integer, p_max_failures integer,
                                               p_key text, p_fingerprint text, p_key_used boolean)
RETURNS integer LANGUAGE plpgsql AS $$
BEGIN
    RETURN keeper_authenticate(ROW(p_request_id, p_operation, p_key, p_fingerprint, p_key_used, NULL, NULL, NULL)::keeper_call,
                               p_login, keeper_session_hash(p_session), p_proven, p_window_seconds, p_max_failures);
END $$;
COMMENT ON FUNCTION keeper_authenticate(text, text, text, text, boolean, integer, integer, text, text, boolean) IS
    'The previous release''s arguments of keeper_authenticate, for its workers while an upgrade runs: passes the call on as a keeper_call.';

CREATE OR REPLACE FUNCTION keeper_check_session(p_request_id text, p_operation text, p_session text, p_ttl_seconds integer,
                                                p_app_id text)
RETURNS integer LANGUAGE plpgsql AS $$
BEGIN
    RETURN keeper_check_session(ROW(p_request_id, p_operation, '', '', false, NULL, NULL, NULL)::keeper_call, keeper_session_hash(p_session), p_ttl_seconds, p_app_id);
END $$;
COMMENT ON FUNCTION keeper_check_session(text, text, text, integer, text) IS
    'The previous release''s arguments of keeper_check_session, for its workers while an upgrade runs: passes the call on as a keeper_call.';

CREATE OR REPLACE FUNCTION keeper_set_account_permits(p_request_id text, p_operation text, p_session text, p_ttl_seconds integer,
                                                      p_payments boolean, p_invoices boolean, p_messages boolean,
                                                      p_key text, p_fingerprint text, p_key_used boolean)
RETURNS integer LANGUAGE plpgsql AS $$
BEGIN
    RETURN keeper_set_account_permits(ROW(p_request_id, p_operation, p_key, p_fingerprint, p_key_used, NULL, NULL, NULL)::keeper_call,
                                      keeper_session_hash(p_session), p_ttl_seconds, p_payments, p_invoices, p_messages);
END $$;
COMMENT ON FUNCTION keeper_set_account_permits(text, text, text, integer, boolean, boolean, boolean, text, text, boolean) IS
    'The previous release''s arguments of keeper_set_account_permits, for its workers while an upgrade runs: passes the call on as a keeper_call.';

CREATE OR REPLACE FUNCTION keeper_set_contact_permits(p_request_id text, p_operation text, p_session text, p_ttl_seconds integer,
                                                      p_wmid text, p_payments boolean, p_invoices boolean, p_messages boolean,
                                                      p_dont_use_confirmation boolean,
                                                      p_key text, p_fingerprint text, p_key_used boolean)
RETURNS integer LANGUAGE plpgsql AS $$
BEGIN
    RETURN keeper_set_contact_permits(ROW(p_request_id, p_operation, p_key, p_fingerprint, p_key_used, NULL, NULL, NULL)::keeper_call,
                                      keeper_session_hash(p_session), p_ttl_seconds, p_wmid, p_payments, p_invoices, p_messages,
                                      p_dont_use_confirmation);
END $$;

COMMENT ON FUNCTION keeper_set_contact_permits(text, text, text, integer, text, boolean, boolean, boolean, boolean, text, text, boolean) IS
    'The previous release''s arguments of keeper_set_contact_permits, for its workers while an upgrade runs: passes the call on as a keeper_call.';

-- The previous release's workers pass the login's name on to keeper_confirm_*, so it is read here.
CREATE OR REPLACE FUNCTION keeper_code_hash(p_request_id text, p_operation text, p_session text, p_ttl_seconds integer,
                                            p_kind text, p_id bigint, p_task_id integer,
                                            p_key text, p_fingerprint text, p_key_used boolean,
                                            OUT result integer, OUT login_id bigint, OUT login text, OUT code_hash text)
LANGUAGE plpgsql AS $$
DECLARE
    found record;
BEGIN
    SELECT * INTO found
      FROM keeper_code_hash(ROW(p_request_id, p_operation, p_key, p_fingerprint, p_key_used, NULL, NULL, NULL)::keeper_call,
                            keeper_session_hash(p_session), p_ttl_seconds, p_kind, p_id, p_task_id);
    result := found.result;
    login_id := found.login_id;
    code_hash := found.code_hash;
    IF found.result = 0 THEN
        SELECT l.login INTO login FROM logins l WHERE l.id = found.login_id;
    END IF;
END $$;
COMMENT ON FUNCTION keeper_code_hash(text, text, text, integer, text, bigint, integer, text, text, boolean) IS
    'The previous release''s arguments of keeper_code_hash, for its workers while an upgrade runs: passes the call on as a keeper_call.';

CREATE OR REPLACE FUNCTION keeper_confirm_transfer(p_request_id text, p_operation text, p_login_id bigint, p_login text,
                                                   p_tran_id bigint, p_matches boolean, p_max_attempts integer,
                                                   p_key text, p_fingerprint text, p_key_used boolean)
RETURNS integer LANGUAGE plpgsql AS $$
BEGIN
    RETURN keeper_confirm_transfer(ROW(p_request_id, p_operation, p_key, p_fingerprint, p_key_used, NULL, NULL, NULL)::keeper_call,
                                   p_login_id, p_tran_id, p_matches, p_max_attempts);
END $$;
COMMENT ON FUNCTION keeper_confirm_transfer(text, text, bigint, text, bigint, boolean, integer, text, text, boolean) IS
    'The previous release''s arguments of keeper_confirm_transfer, for its workers while an upgrade runs: passes the call on as a keeper_call.';

CREATE OR REPLACE FUNCTION keeper_confirm_task(p_request_id text, p_operation text, p_login_id bigint, p_login text,
                                               p_profile_id integer, p_task_id integer, p_matches boolean, p_max_attempts integer,
                                               p_key text, p_fingerprint text, p_key_used boolean)
RETURNS integer LANGUAGE plpgsql AS $$
BEGIN
    RETURN keeper_confirm_task(ROW(p_request_id, p_operation, p_key, p_fingerprint, p_key_used, NULL, NULL, NULL)::keeper_call,
                               p_login_id, p_profile_id, p_task_id, p_matches, p_max_attempts);
END $$;
COMMENT ON FUNCTION keeper_confirm_task(text, text, bigint, text, integer, integer, boolean, integer, text, text, boolean) IS
    'The previous release''s arguments of keeper_confirm_task, for its workers while an upgrade runs: passes the call on as a keeper_call.';

CREATE OR REPLACE FUNCTION keeper_topup(p_request_id text, p_operation text, p_session text, p_ttl_seconds integer,
                                        p_purse text, p_card_id bigint, p_amount numeric, p_max_amount numeric,
                                        p_default_daily_limit numeric,
                                        p_key text, p_fingerprint text, p_key_used boolean)
RETURNS integer LANGUAGE plpgsql AS $$
BEGIN
    RETURN keeper_topup(ROW(p_request_id, p_operation, p_key, p_fingerprint, p_key_used, NULL, NULL, NULL)::keeper_call,
                        keeper_session_hash(p_session), p_ttl_seconds, p_purse, p_card_id, p_amount, p_max_amount, p_default_daily_limit);
END $$;
COMMENT ON FUNCTION keeper_topup(text, text, text, integer, text, bigint, numeric, numeric, numeric, text, text, boolean) IS
    'The previous release''s arguments of keeper_topup, for its workers while an upgrade runs: passes the call on as a keeper_call.';

CREATE OR REPLACE FUNCTION keeper_rename_profile(p_request_id text, p_operation text, p_session text, p_ttl_seconds integer,
                                                 p_profile_id integer, p_name text,
                                                 p_key text, p_fingerprint text, p_key_used boolean)
RETURNS integer LANGUAGE plpgsql AS $$
BEGIN
    RETURN keeper_rename_profile(ROW(p_request_id, p_operation, p_key, p_fingerprint, p_key_used, NULL, NULL, NULL)::keeper_call,
                                 keeper_session_hash(p_session), p_ttl_seconds, p_profile_id, p_name);
END $$;
COMMENT ON FUNCTION keeper_rename_profile(text, text, text, integer, integer, text, text, text, boolean) IS
    'The previous release''s arguments of keeper_rename_profile, for its workers while an upgrade runs: passes the call on as a keeper_call.';

CREATE OR REPLACE FUNCTION keeper_subscribe_device(p_request_id text, p_operation text, p_session text, p_ttl_seconds integer,
                                                   p_provider text, p_push_user text, p_tag integer, p_locale integer,
                                                   p_key text, p_fingerprint text, p_key_used boolean)
RETURNS integer LANGUAGE plpgsql AS $$
BEGIN
    RETURN keeper_subscribe_device(ROW(p_request_id, p_operation, p_key, p_fingerprint, p_key_used, NULL, NULL, NULL)::keeper_call,
                                   keeper_session_hash(p_session), p_ttl_seconds, p_provider, p_push_user, p_tag, p_locale);
END $$;
COMMENT ON FUNCTION keeper_subscribe_device(text, text, text, integer, text, text, integer, integer, text, text, boolean) IS
    'The previous release''s arguments of keeper_subscribe_device, for its workers while an upgrade runs: passes the call on as a keeper_call.';

CREATE OR REPLACE FUNCTION keeper_subscribe_app_device(p_request_id text, p_operation text, p_app_id text, p_user_id text,
                                                       p_provider text, p_push_user text, p_tag integer, p_locale integer,
                                                       p_key text, p_fingerprint text, p_key_used boolean)
RETURNS integer LANGUAGE plpgsql AS $$
BEGIN
    -- Those workers call it once they found the hash right for an enabled application: proven,
    -- under the guard's defaults.
    RETURN keeper_subscribe_app_device(ROW(p_request_id, p_operation, p_key, p_fingerprint, p_key_used, NULL, NULL, NULL)::keeper_call,
                                       p_app_id, p_user_id, p_provider, p_push_user, p_tag, p_locale, true, 900, 20);
END $$;
COMMENT ON FUNCTION keeper_subscribe_app_device(text, text, text, text, text, text, integer, integer, text, text, boolean) IS
    'The previous release''s arguments of keeper_subscribe_app_device, for its workers while an upgrade runs: passes the call on as a keeper_call.';

CREATE OR REPLACE FUNCTION keeper_mark_sms_delivered(p_request_id text, p_operation text, p_session text, p_ttl_seconds integer,
                                                     p_sms_id integer,
                                                     p_key text, p_fingerprint text, p_key_used boolean)
RETURNS integer LANGUAGE plpgsql AS $$
BEGIN
    RETURN keeper_mark_sms_delivered(ROW(p_request_id, p_operation, p_key, p_fingerprint, p_key_used, NULL, NULL, NULL)::keeper_call,
                                     keeper_session_hash(p_session), p_ttl_seconds, p_sms_id);
END $$;
COMMENT ON FUNCTION keeper_mark_sms_delivered(text, text, text, integer, integer, text, text, boolean) IS
    'The previous release''s arguments of keeper_mark_sms_delivered, for its workers while an upgrade runs: passes the call on as a keeper_call.';
