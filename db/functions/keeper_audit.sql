-- keeper_audit: A call's audit row, written in the call's own transaction. Every call's
-- transaction ends here, with its caller and result known, so this is also where a keyed call's
-- Idempotency-Key is recorded (docs/design.md, "Idempotency keys"). Every write function passes
-- on its first parameter, the call's frame (the keeper_call type: request id, operation, key ('':
-- none), the call's fingerprints (hex, comma-separated: the keyed ones are recorded,
-- keeper_recorded_fingerprint; a repeat matches any, keeper_idempotency), key_used, the trace id),
-- which this function, keeper_claim and
-- keeper_idempotency read. The row holds the trace id only when it is not the request id (a
-- trace the client started, not nginx: migration 0019).
-- The first call with a key records it by a plain INSERT: a repeat fails it on the unique index
-- (23505, after waiting for the first call's transaction should it still be open), its
-- transaction changes nothing, and the worker runs it again with key_used, which reads the
-- recorded call instead (keeper_idempotency). A first call so pays one row and one index entry;
-- an ON CONFLICT clause or a look-up before the INSERT would cost every first call what only a
-- repeat needs.
-- The row names the caller's login by id. p_login is the login's name when the caller has it at
-- hand (a keyed call's key row is per login name), or a name the call only claimed: stored in the
-- row only when no login has it.
CREATE OR REPLACE FUNCTION keeper_audit(p_call keeper_call, p_login_id bigint, p_login text, p_app_id text, p_result integer)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
    v_login text;  -- the caller's login name, for its key row
BEGIN
    -- Most calls carry no key and name their login by id, if at all: for them this one condition
    -- and the INSERT are the whole function. PL/pgSQL sets up each expression it evaluates again
    -- in every transaction, so each one skipped here (an initializer, a condition) is work spared
    -- on every call (bench/history.md, "The audit row's common path"). A call with its
    -- login's name at hand (an Authenticate) and no key takes one condition more. The parameters
    -- p_login_id and p_login become the row's columns on the way.
    IF p_call.key <> '' OR p_login IS NOT NULL THEN
        IF p_call.key = '' AND p_login_id IS NOT NULL THEN
            p_login := NULL;  -- a known login without a key: its row names it by id alone
        ELSE
            IF p_login_id IS NULL AND p_login IS NOT NULL THEN
                SELECT id INTO p_login_id FROM logins WHERE login = p_login;  -- a claimed login (wrong authHash)
            END IF;
            -- A key belongs to the caller its credentials prove. With no caller known (an unknown
            -- session) nothing is recorded or looked up, nor when the login or app is only claimed: 4
            -- (authentication failed) and 11 (too many attempts, whatever the hash said); such a call
            -- neither takes the key from its owner nor learns what the owner's call answered. 2 and 3
            -- (the session: authenticate, then repeat with the same key) look up, and record nothing.
            IF p_call.key <> '' AND num_nonnulls(p_login_id, p_app_id) > 0 AND p_result NOT IN (keeper_result('auth_failed'), keeper_result('too_many_attempts')) THEN
                v_login := p_login;
                IF v_login IS NULL AND p_login_id IS NOT NULL THEN
                    SELECT login INTO v_login FROM logins WHERE id = p_login_id;
                END IF;
                IF p_call.key_used OR p_result IN (keeper_result('session_not_found'), keeper_result('session_expired')) THEN
                    PERFORM keeper_idempotency(p_call, v_login, p_app_id, p_result);
                ELSE
                    INSERT INTO idempotency_keys (login, app_id, key, operation, fingerprint, result, request_id)
                    VALUES (v_login, CASE WHEN v_login IS NULL THEN p_app_id END, p_call.key, p_call.operation,
                            keeper_recorded_fingerprint(p_call.fingerprint), p_result, p_call.request_id);
                END IF;
            END IF;
            IF p_login_id IS NOT NULL THEN
                p_login := NULL;  -- the row names a known login by id alone
            END IF;
        END IF;
    END IF;
    INSERT INTO audit_log (login_id, login, app_id, operation, result, request_id, trace_id)
    VALUES (p_login_id, p_login, p_app_id, p_call.operation, p_result,
            p_call.request_id, NULLIF(NULLIF(p_call.trace_id, ''), p_call.request_id));
    RETURN p_result;
END $$;
COMMENT ON FUNCTION keeper_audit(keeper_call, bigint, text, text, integer) IS
    'Writes a call''s audit row (and, with an Idempotency-Key, its key row, or through keeper_idempotency the recorded call''s answer) and returns its result. Called alone for calls refused before any other database work (wrong authHash).';
