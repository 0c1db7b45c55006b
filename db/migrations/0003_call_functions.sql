-- One function per operation's database work, so a call costs one round trip (two where a secret
-- or a code hash must be checked in the worker first) instead of BEGIN, reads, writes, the audit
-- row and COMMIT sent one by one. Each function runs in the implicit transaction of the one
-- statement that calls it: everything it changes, its audit row included, commits together, and
-- a call that returns non-zero changes nothing but counters and its audit row (docs/design.md).
-- All are PL/pgSQL, whose statement plans are cached per connection (an SQL-language function
-- that is not inlined is planned again on every call).
-- Under READ COMMITTED every statement inside a PL/pgSQL function takes a fresh snapshot, so a
-- query that follows a row lock (FOR UPDATE) sees what the previous holder of the lock committed:
-- the daily limit, the Authenticate throttle and the code attempts count exactly.
--
-- Arguments common to the call functions: p_request_id and p_operation name the audit row;
-- p_session and p_ttl_seconds are the call's (lower-case) sessionId and the session lifetime.
-- Result codes are those of the API (docs/api.md).

-- audit_log only grows, in time order: a BRIN index answers "calls between these times" at a
-- fraction of a B-tree's cost per insert (one more index write on every call).
DROP INDEX audit_log_at_idx;
CREATE INDEX audit_log_at_brin ON audit_log USING brin (at);

CREATE FUNCTION keeper_audit(p_request_id text, p_operation text, p_login text, p_app_id text, p_result integer)
RETURNS integer LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO audit_log (login, app_id, operation, result, request_id)
    VALUES (p_login, p_app_id, p_operation, p_result, p_request_id);
    RETURN p_result;
END $$;
COMMENT ON FUNCTION keeper_audit(text, text, text, text, integer) IS
    'Writes a call''s audit row and returns its result. Called alone for calls refused before any other database work (wrong authHash).';

CREATE FUNCTION keeper_session(p_session text, p_ttl_seconds integer,
                               OUT code integer, OUT login_id bigint, OUT login text)
LANGUAGE plpgsql STABLE AS $$
BEGIN
    SELECT s.login_id, l.login,
           CASE WHEN s.authenticated_at + p_ttl_seconds * interval '1 second' > now() THEN 0 ELSE 3 END
      INTO login_id, login, code
      FROM sessions s JOIN logins l ON l.id = s.login_id
     WHERE s.session_id = p_session;
    IF NOT FOUND THEN
        code := 2;
    END IF;
END $$;
COMMENT ON FUNCTION keeper_session(text, integer) IS
    'Resolves a sessionId: code 0 valid, 2 unknown or never authenticated, 3 expired; with the session''s login (also when expired, for the audit row).';

CREATE FUNCTION keeper_decide_code(p_status text, p_expired boolean, p_failed_attempts integer, p_matches boolean,
                                   p_max_attempts integer, OUT result integer, OUT action text)
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
    IF p_status IN ('completed', 'active') THEN
        result := CASE WHEN p_matches THEN 0 ELSE 8 END;
        action := 'none';
    ELSIF p_status = 'locked' THEN
        result := 7;
        action := 'none';
    ELSIF p_expired THEN
        result := 12;
        action := 'none';
    ELSIF p_matches THEN
        result := 0;
        action := 'complete';
    ELSIF p_failed_attempts + 1 >= p_max_attempts THEN
        result := 7;
        action := 'lock';
    ELSE
        result := 6;
        action := 'count';
    END IF;
END $$;
COMMENT ON FUNCTION keeper_decide_code(text, boolean, integer, boolean, integer) IS
    'The rule FinishCodeProtectedOperation and TelepaySchedulerConfirmCreate share: right code completes (0); wrong code 6, the max_attempts-th wrong one locks for good (7); locked 7; past expiry 12; done and the right code again 0, another code 8.';

-- Authenticate ------------------------------------------------------------------------------

CREATE FUNCTION keeper_authenticate(p_request_id text, p_operation text, p_login text, p_session text,
                                    p_proven boolean, p_window_seconds integer, p_max_failures integer)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
    v_login_id bigint;
    v_failures integer;
    v_bound boolean;
    v_result integer;
BEGIN
    -- The login's row lock makes concurrent calls for one login count its failures in turn.
    SELECT id INTO v_login_id FROM logins WHERE login = p_login FOR UPDATE;
    SELECT count(*) INTO v_failures FROM auth_failures
     WHERE login = p_login AND failed_at > now() - p_window_seconds * interval '1 second';
    IF v_failures >= p_max_failures THEN
        v_result := 11;  -- throttled: refused whatever the hash said
    ELSE
        v_bound := false;
        IF p_proven AND v_login_id IS NOT NULL THEN
            -- Binds or renews; a session bound to another login is not rebound (then: 4, as a wrong hash).
            INSERT INTO sessions (session_id, login_id, authenticated_at) VALUES (p_session, v_login_id, now())
            ON CONFLICT (session_id) DO UPDATE SET authenticated_at = EXCLUDED.authenticated_at
             WHERE sessions.login_id = EXCLUDED.login_id;
            v_bound := FOUND;
        END IF;
        IF v_bound THEN
            IF v_failures > 0 THEN
                DELETE FROM auth_failures WHERE login = p_login;  -- a success forgives earlier failures
            END IF;
            v_result := 0;
        ELSE
            DELETE FROM auth_failures
             WHERE login = p_login AND failed_at <= now() - p_window_seconds * interval '1 second';
            INSERT INTO auth_failures (login) VALUES (p_login);
            v_result := 4;
        END IF;
    END IF;
    RETURN keeper_audit(p_request_id, p_operation, p_login, NULL, v_result);
END $$;
COMMENT ON FUNCTION keeper_authenticate(text, text, text, text, boolean, integer, integer) IS
    'Authenticate''s transaction. p_proven: the worker found authHash right for the login''s secret (the secret never leaves the worker''s reach as a hash comparison in SQL).';

-- Sessions and applications -------------------------------------------------------------------

CREATE FUNCTION keeper_check_session(p_request_id text, p_operation text, p_session text, p_ttl_seconds integer,
                                     p_app_id text)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
    s record := keeper_session(p_session, p_ttl_seconds);
BEGIN
    IF s.code <> 0 THEN
        RETURN keeper_audit(p_request_id, p_operation, s.login, NULL, s.code);
    END IF;
    RETURN keeper_audit(p_request_id, p_operation, s.login, p_app_id,
        CASE WHEN EXISTS (SELECT 1 FROM applications WHERE app_id = p_app_id AND enabled) THEN 0 ELSE 10 END);
END $$;
COMMENT ON FUNCTION keeper_check_session(text, text, text, integer, text) IS 'CheckSessionEx.';

-- Permits -------------------------------------------------------------------------------------

CREATE FUNCTION keeper_set_account_permits(p_request_id text, p_operation text, p_session text, p_ttl_seconds integer,
                                           p_payments boolean, p_invoices boolean, p_messages boolean)
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
    RETURN keeper_audit(p_request_id, p_operation, s.login, NULL, s.code);
END $$;
COMMENT ON FUNCTION keeper_set_account_permits(text, text, text, integer, boolean, boolean, boolean) IS 'SetAccountPermits.';

CREATE FUNCTION keeper_set_contact_permits(p_request_id text, p_operation text, p_session text, p_ttl_seconds integer,
                                           p_wmid text, p_payments boolean, p_invoices boolean, p_messages boolean,
                                           p_dont_use_confirmation boolean)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
    s record := keeper_session(p_session, p_ttl_seconds);
BEGIN
    IF s.code = 0 THEN
        INSERT INTO contact_permits (login_id, wmid, accept_payments, accept_invoices, accept_messages, dont_use_confirmation)
        VALUES (s.login_id, p_wmid, p_payments, p_invoices, p_messages, p_dont_use_confirmation)
        ON CONFLICT (login_id, wmid) DO UPDATE SET accept_payments = EXCLUDED.accept_payments,
            accept_invoices = EXCLUDED.accept_invoices, accept_messages = EXCLUDED.accept_messages,
            dont_use_confirmation = EXCLUDED.dont_use_confirmation, updated_at = now();
    END IF;
    RETURN keeper_audit(p_request_id, p_operation, s.login, NULL, s.code);
END $$;
COMMENT ON FUNCTION keeper_set_contact_permits(text, text, text, integer, text, boolean, boolean, boolean, boolean) IS
    'SetContactPermitsEx.';

-- Code-protected transfers and telepay tasks: the worker reads the code hash (keeper_code_hash),
-- checks the code itself in constant time, then sends the verdict (keeper_confirm_*). -----------

CREATE FUNCTION keeper_code_hash(p_request_id text, p_operation text, p_session text, p_ttl_seconds integer,
                                 p_kind text, p_id bigint, p_task_id integer,
                                 OUT result integer, OUT login_id bigint, OUT login text, OUT code_hash text)
LANGUAGE plpgsql AS $$
DECLARE
    s record := keeper_session(p_session, p_ttl_seconds);
BEGIN
    login_id := s.login_id;
    login := s.login;
    result := s.code;
    IF result = 0 AND p_kind = 'transfer' THEN
        SELECT t.code_hash INTO code_hash FROM protected_transfers t WHERE t.id = p_id AND t.login_id = s.login_id;
    ELSIF result = 0 THEN
        SELECT t.code_hash INTO code_hash FROM telepay_tasks t JOIN telepay_profiles p ON p.id = t.profile_id
         WHERE t.profile_id = p_id AND t.id = p_task_id AND p.login_id = s.login_id;
    END IF;
    IF result = 0 AND code_hash IS NULL THEN
        result := 5;  -- not this login's, or none: one answer
    END IF;
    IF result <> 0 THEN
        PERFORM keeper_audit(p_request_id, p_operation, login, NULL, result);  -- the call ends here
    END IF;
END $$;
COMMENT ON FUNCTION keeper_code_hash(text, text, text, integer, text, bigint, integer) IS
    'First step of FinishCodeProtectedOperation (p_kind transfer, p_id tranId) and TelepaySchedulerConfirmCreate (p_kind task, p_id profileId, p_task_id taskId): result 0 with the stored code hash, or the final result (2, 3, 5), audited.';

CREATE FUNCTION keeper_confirm_transfer(p_request_id text, p_operation text, p_login_id bigint, p_login text,
                                        p_tran_id bigint, p_matches boolean, p_max_attempts integer)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
    t record;
    d record;
BEGIN
    SELECT status, failed_attempts, expires_at <= now() AS expired INTO t
      FROM protected_transfers WHERE id = p_tran_id AND login_id = p_login_id FOR UPDATE;
    IF NOT FOUND THEN
        RETURN keeper_audit(p_request_id, p_operation, p_login, NULL, 5);
    END IF;
    d := keeper_decide_code(t.status, t.expired, t.failed_attempts, p_matches, p_max_attempts);
    IF d.action = 'complete' THEN
        UPDATE protected_transfers SET status = 'completed', completed_at = now() WHERE id = p_tran_id;
    ELSIF d.action IN ('count', 'lock') THEN
        UPDATE protected_transfers SET failed_attempts = failed_attempts + 1,
               status = CASE WHEN d.action = 'lock' THEN 'locked' ELSE status END
         WHERE id = p_tran_id;
    END IF;
    RETURN keeper_audit(p_request_id, p_operation, p_login, NULL, d.result);
END $$;
COMMENT ON FUNCTION keeper_confirm_transfer(text, text, bigint, text, bigint, boolean, integer) IS
    'FinishCodeProtectedOperation''s transaction: p_matches is the worker''s verdict on the protection code.';

CREATE FUNCTION keeper_confirm_task(p_request_id text, p_operation text, p_login_id bigint, p_login text,
                                    p_profile_id integer, p_task_id integer, p_matches boolean, p_max_attempts integer)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
    t record;
    d record;
BEGIN
    SELECT k.status, k.failed_attempts, k.expires_at <= now() AS expired INTO t
      FROM telepay_tasks k JOIN telepay_profiles p ON p.id = k.profile_id
     WHERE k.profile_id = p_profile_id AND k.id = p_task_id AND p.login_id = p_login_id
       FOR UPDATE OF k;
    IF NOT FOUND THEN
        RETURN keeper_audit(p_request_id, p_operation, p_login, NULL, 5);
    END IF;
    d := keeper_decide_code(t.status, t.expired, t.failed_attempts, p_matches, p_max_attempts);
    IF d.action = 'complete' THEN
        UPDATE telepay_tasks SET status = 'active', confirmed_at = now() WHERE profile_id = p_profile_id AND id = p_task_id;
    ELSIF d.action IN ('count', 'lock') THEN
        UPDATE telepay_tasks SET failed_attempts = failed_attempts + 1,
               status = CASE WHEN d.action = 'lock' THEN 'locked' ELSE status END
         WHERE profile_id = p_profile_id AND id = p_task_id;
    END IF;
    RETURN keeper_audit(p_request_id, p_operation, p_login, NULL, d.result);
END $$;
COMMENT ON FUNCTION keeper_confirm_task(text, text, bigint, text, integer, integer, boolean, integer) IS
    'TelepaySchedulerConfirmCreate''s transaction: p_matches is the worker''s verdict on the confirmation code.';

-- Top-ups -------------------------------------------------------------------------------------

CREATE FUNCTION keeper_topup(p_request_id text, p_operation text, p_session text, p_ttl_seconds integer,
                             p_purse text, p_card_id bigint, p_amount numeric, p_max_amount numeric,
                             p_default_daily_limit numeric)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
    s record := keeper_session(p_session, p_ttl_seconds);
    c record;
BEGIN
    IF s.code <> 0 THEN
        RETURN keeper_audit(p_request_id, p_operation, s.login, NULL, s.code);
    END IF;
    -- The card's lock makes concurrent top-ups of one card sum exactly against its daily limit.
    SELECT blocked, daily_limit INTO c FROM cards WHERE id = p_card_id AND login_id = s.login_id FOR UPDATE;
    IF NOT FOUND OR c.blocked OR NOT EXISTS (SELECT 1 FROM purses WHERE purse = p_purse AND login_id = s.login_id) THEN
        RETURN keeper_audit(p_request_id, p_operation, s.login, NULL, 5);  -- a blocked card answers as a missing one
    END IF;
    IF p_amount > p_max_amount OR
       (SELECT COALESCE(sum(amount), 0) FROM topups
         WHERE card_id = p_card_id AND created_at > now() - interval '24 hours') + p_amount
       > COALESCE(c.daily_limit, p_default_daily_limit) THEN
        RETURN keeper_audit(p_request_id, p_operation, s.login, NULL, 9);
    END IF;
    INSERT INTO topups (card_id, purse, amount, request_id) VALUES (p_card_id, p_purse, p_amount, p_request_id);
    UPDATE purses SET balance = balance + p_amount WHERE purse = p_purse;
    RETURN keeper_audit(p_request_id, p_operation, s.login, NULL, 0);
END $$;
COMMENT ON FUNCTION keeper_topup(text, text, text, integer, text, bigint, numeric, numeric, numeric) IS
    'TopupPurseFromAtmCard''s transaction: ownership (5), the per-operation and 24-hour card limits (9), the top-up row and the purse balance.';

-- Telepay profiles ----------------------------------------------------------------------------

CREATE FUNCTION keeper_rename_profile(p_request_id text, p_operation text, p_session text, p_ttl_seconds integer,
                                      p_profile_id integer, p_name text)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
    s record := keeper_session(p_session, p_ttl_seconds);
    v_result integer := s.code;
BEGIN
    IF v_result = 0 THEN
        UPDATE telepay_profiles SET name = p_name, updated_at = now() WHERE id = p_profile_id AND login_id = s.login_id;
        IF NOT FOUND THEN
            v_result := 5;
        END IF;
    END IF;
    RETURN keeper_audit(p_request_id, p_operation, s.login, NULL, v_result);
END $$;
COMMENT ON FUNCTION keeper_rename_profile(text, text, text, integer, integer, text) IS 'RenameTelepayProfile.';

-- Push ----------------------------------------------------------------------------------------

CREATE FUNCTION keeper_subscribe_device(p_request_id text, p_operation text, p_session text, p_ttl_seconds integer,
                                        p_provider text, p_push_user text, p_tag integer, p_locale integer)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
    s record := keeper_session(p_session, p_ttl_seconds);
BEGIN
    IF s.code = 0 THEN
        INSERT INTO push_subscriptions (provider, push_service_user_id, login_id, tag, locale)
        VALUES (p_provider, p_push_user, s.login_id, p_tag, p_locale)
        ON CONFLICT (provider, push_service_user_id) DO UPDATE SET login_id = EXCLUDED.login_id, tag = EXCLUDED.tag,
            locale = EXCLUDED.locale, updated_at = now();
    END IF;
    RETURN keeper_audit(p_request_id, p_operation, s.login, NULL, s.code);
END $$;
COMMENT ON FUNCTION keeper_subscribe_device(text, text, text, integer, text, text, integer, integer) IS
    'SubscribeWithTagAndLocale: the device moves to this login if another had it.';

CREATE FUNCTION keeper_subscribe_app_device(p_request_id text, p_operation text, p_app_id text, p_user_id text,
                                            p_provider text, p_push_user text, p_tag integer, p_locale integer)
RETURNS integer LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO app_push_subscriptions (provider, push_service_user_id, app_id, user_id, tag, locale)
    VALUES (p_provider, p_push_user, p_app_id, p_user_id, p_tag, p_locale)
    ON CONFLICT (provider, push_service_user_id) DO UPDATE SET app_id = EXCLUDED.app_id, user_id = EXCLUDED.user_id,
        tag = EXCLUDED.tag, locale = EXCLUDED.locale, updated_at = now();
    RETURN keeper_audit(p_request_id, p_operation, NULL, p_app_id, 0);
END $$;
COMMENT ON FUNCTION keeper_subscribe_app_device(text, text, text, text, text, text, integer, integer) IS
    'SubscribeAppWithTagAndLocale once the worker has checked authHash against the application''s secret.';

CREATE FUNCTION keeper_mark_sms_delivered(p_request_id text, p_operation text, p_session text, p_ttl_seconds integer,
                                          p_sms_id integer)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
    s record := keeper_session(p_session, p_ttl_seconds);
    v_result integer := s.code;
BEGIN
    IF v_result = 0 THEN
        -- Already delivered: 0, and the first delivery time is kept.
        UPDATE push_sms SET delivered_at = COALESCE(delivered_at, now()) WHERE id = p_sms_id AND login_id = s.login_id;
        IF NOT FOUND THEN
            v_result := 5;
        END IF;
    END IF;
    RETURN keeper_audit(p_request_id, p_operation, s.login, NULL, v_result);
END $$;
COMMENT ON FUNCTION keeper_mark_sms_delivered(text, text, text, integer, integer) IS 'MarkPushSmsAsDelivered.';

-- The daily-limit sum over topups and the failure count over auth_failures must stay index range
-- scans whatever the statistics say: on a new database those tables are empty when first planned,
-- and PL/pgSQL keeps the cached plan (a sequential scan) while the table grows — measured: every
-- top-up reading the whole table. Both functions only ever look rows up by key.
ALTER FUNCTION keeper_topup(text, text, text, integer, text, bigint, numeric, numeric, numeric) SET enable_seqscan = off;
ALTER FUNCTION keeper_authenticate(text, text, text, text, boolean, integer, integer) SET enable_seqscan = off;
