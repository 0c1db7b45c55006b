-- keeper_authenticate: Authenticate's transaction: the per-login throttle, binding or renewing the session.
-- The login's advisory lock makes one login's concurrent calls count its failures in turn; it
-- needs no UPDATE right on logins, which the workers' role lacks.
-- The failure count over auth_failures must stay an index range scan whatever the statistics
-- say: PL/pgSQL keeps the plan made while the table was empty, so the function runs with
-- enable_seqscan off (docs/schema.md, "Functions").
CREATE OR REPLACE FUNCTION keeper_authenticate(p_call keeper_call, p_login text, p_session_hash bytea,
                                               p_proven boolean, p_window_seconds integer, p_max_failures integer)
RETURNS integer LANGUAGE plpgsql SET enable_seqscan = off AS $$
DECLARE
    v_login_id bigint;
    v_failures integer;
    v_bound boolean;
    v_result integer;
BEGIN
    IF keeper_claim_needed(p_call) THEN PERFORM keeper_claim(p_call); END IF;
    -- One login's calls count its failures in turn.
    PERFORM pg_advisory_xact_lock(1, hashtext(p_login));
    SELECT id INTO v_login_id FROM logins WHERE login = p_login;
    SELECT count(*) INTO v_failures FROM auth_failures
     WHERE login = p_login AND failed_at > now() - p_window_seconds * interval '1 second';
    IF v_failures >= p_max_failures THEN
        v_result := keeper_result('too_many_attempts');  -- throttled: refused whatever the hash said
    ELSE
        v_bound := false;
        IF p_proven AND v_login_id IS NOT NULL THEN
            -- Binds or renews; a session bound to another login is not rebound (then: 4, as a wrong hash).
            INSERT INTO sessions (session_hash, login_id, authenticated_at) VALUES (p_session_hash, v_login_id, now())
            ON CONFLICT (session_hash) DO UPDATE SET authenticated_at = EXCLUDED.authenticated_at
             WHERE sessions.login_id = EXCLUDED.login_id;
            v_bound := FOUND;
        END IF;
        IF v_bound THEN
            IF v_failures > 0 THEN
                DELETE FROM auth_failures WHERE login = p_login;  -- a success forgives earlier failures
            END IF;
            v_result := keeper_result('ok');
        ELSE
            DELETE FROM auth_failures
             WHERE login = p_login AND failed_at <= now() - p_window_seconds * interval '1 second';
            INSERT INTO auth_failures (login) VALUES (p_login);
            v_result := keeper_result('auth_failed');
        END IF;
    END IF;
    RETURN keeper_audit(p_call, v_login_id, p_login, NULL, v_result);
END $$;
COMMENT ON FUNCTION keeper_authenticate(keeper_call, text, bytea, boolean, integer, integer) IS
    'Authenticate''s transaction. p_proven: the worker found authHash right for the login''s secret (the secret never leaves the worker''s reach as a hash comparison in SQL).';
