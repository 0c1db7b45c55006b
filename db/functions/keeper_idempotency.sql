-- keeper_idempotency: the Idempotency-Key step of a call's transaction (docs/api-decisions.md,
-- "Idempotency-Key"), run by keeper_audit just before the audit row when the call has a key.
-- The first call with a key records caller, key, operation, fingerprint and result. A repeat by
-- the same caller raises, so its transaction changes nothing: SQLSTATE KI200 "replay" with the
-- recorded result in the message, or KI422 when its fingerprint differs. A repeat that arrives
-- while the first call's transaction is open waits on the unique index until it ends (at most
-- lock_timeout), then replays it, or runs if it rolled back.
-- Results that say nothing happened and advise to come back are not recorded: 2 and 3 (the
-- session: authenticate, then repeat with the same key) and 11 (too many attempts); with no
-- caller known (an unknown session) nothing is looked up either.
-- It runs with the caller's rights (keeper_worker may SELECT and INSERT idempotency_keys, as it may
-- topups): a SECURITY DEFINER function with its own search_path switches role and path on every
-- call, which measured about a tenth of a keyed call's cost in the database.
CREATE OR REPLACE FUNCTION keeper_idempotency(p_request_id text, p_operation text, p_login text, p_app_id text,
                                              p_result integer)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    v_key text := current_setting('keeper.idempotency_key');
    v_fingerprint bytea := decode(current_setting('keeper.idempotency_fingerprint'), 'hex');
    v_app_id text := CASE WHEN p_login IS NULL THEN p_app_id END;
    earlier record;
BEGIN
    IF p_login IS NULL AND v_app_id IS NULL THEN
        RETURN;
    END IF;
    IF p_result NOT IN (2, 3, 11) THEN
        INSERT INTO idempotency_keys (login, app_id, key, operation, fingerprint, result, request_id)
        VALUES (p_login, v_app_id, v_key, p_operation, v_fingerprint, p_result, p_request_id)
        ON CONFLICT DO NOTHING;
        IF FOUND THEN
            RETURN;
        END IF;
    END IF;
    IF p_login IS NOT NULL THEN
        SELECT fingerprint, result INTO earlier FROM idempotency_keys WHERE login = p_login AND app_id IS NULL AND key = v_key;
    ELSE
        SELECT fingerprint, result INTO earlier FROM idempotency_keys WHERE login IS NULL AND app_id = v_app_id AND key = v_key;
    END IF;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    IF earlier.fingerprint <> v_fingerprint THEN
        RAISE EXCEPTION 'keeper: Idempotency-Key already used with other parameters' USING ERRCODE = 'KI422';
    END IF;
    RAISE EXCEPTION 'keeper: Idempotency-Key replay result=%', earlier.result USING ERRCODE = 'KI200';
END $$;
REVOKE ALL ON FUNCTION keeper_idempotency(text, text, text, text, integer) FROM PUBLIC;
COMMENT ON FUNCTION keeper_idempotency(text, text, text, text, integer) IS
    'Records a keyed call''s caller, key, fingerprint and result, or raises KI200 (a repeat: "replay result=N") or KI422 (the key with other parameters). Called by keeper_audit.';
