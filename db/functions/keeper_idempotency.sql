-- keeper_idempotency: a keyed call whose key may be recorded already (docs/api-decisions.md,
-- "Idempotency-Key"), run by keeper_audit when the worker says so (key_used: the first attempt's
-- INSERT of the key met the unique index) or when the call's result is one that is not recorded
-- (2, 3; a call whose caller is unproven, 4 and 11, does not come here). A repeat by the same
-- caller raises, so its transaction changes nothing: SQLSTATE KI2nn, a replay whose recorded
-- result is nn (KI200 to KI212: the code, not the message, carries it), or KI422 when its
-- fingerprint differs. The frame's fingerprint is a list (hex, comma-separated): the call's
-- meaning keyed under each key of the worker's key file, the current key's first, then unkeyed as
-- the previous release recorded it (db/store/pg_store.cpp, stored_fingerprints). A key row
-- records every keyed one side by side (keeper_recorded_fingerprint), and a repeat is the
-- recorded call's when any 32 bytes of the record equal any of the repeat's: a key recorded
-- before a key rotation, by a host that has the new key while this one has only the old, or by
-- the previous release's workers, still replays.
-- The previous release's workers (the frames of keeper_previous_release.sql, whose trace id is
-- NULL) present their unkeyed digest alone, which a key this release recorded does not hold:
-- their repeat of such a key cannot be told from a key used with other parameters, so it changes
-- nothing and raises 55P03, which those workers answer 409, "repeat with the same key"; the
-- upgrade's hosts of this release then answer the repeat.
-- A call whose key is not recorded (the first call rolled back since) is recorded here as a first
-- call would be, unless its result is 2 or 3.
-- It runs with the caller's rights (keeper_worker may SELECT and INSERT idempotency_keys, as it may
-- topups): a SECURITY DEFINER function with its own search_path switches role and path on every
-- call, which measured about a tenth of a keyed call's cost in the database.
CREATE OR REPLACE FUNCTION keeper_idempotency(p_call keeper_call, p_login text, p_app_id text, p_result integer)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    v_app_id text := CASE WHEN p_login IS NULL THEN p_app_id END;
    earlier record;
BEGIN
    IF p_result NOT IN (keeper_result('session_not_found'), keeper_result('session_expired')) THEN
        INSERT INTO idempotency_keys (login, app_id, key, operation, fingerprint, result, request_id)
        VALUES (p_login, v_app_id, p_call.key, p_call.operation, keeper_recorded_fingerprint(p_call.fingerprint), p_result,
                p_call.request_id)
        ON CONFLICT DO NOTHING;
        IF FOUND THEN
            RETURN;
        END IF;
    END IF;
    IF p_login IS NOT NULL THEN
        SELECT fingerprint, result INTO earlier FROM idempotency_keys WHERE login = p_login AND app_id IS NULL AND key = p_call.key;
    ELSE
        SELECT fingerprint, result INTO earlier FROM idempotency_keys WHERE login IS NULL AND app_id = v_app_id AND key = p_call.key;
    END IF;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM unnest(string_to_array(p_call.fingerprint, ',')) AS f,
                                 generate_series(0, octet_length(earlier.fingerprint) / 32 - 1) AS i
                    WHERE substring(earlier.fingerprint FROM i * 32 + 1 FOR 32) = decode(f, 'hex')) THEN
        IF p_call.trace_id IS NULL THEN
            RAISE EXCEPTION 'keeper: the previous release cannot compare this key''s keyed fingerprint'
                USING ERRCODE = '55P03';
        END IF;
        RAISE EXCEPTION 'keeper: Idempotency-Key already used with other parameters' USING ERRCODE = 'KI422';
    END IF;
    RAISE EXCEPTION 'keeper: Idempotency-Key replay result=%', earlier.result
        USING ERRCODE = 'KI2' || lpad(earlier.result::text, 2, '0');
END $$;
REVOKE ALL ON FUNCTION keeper_idempotency(keeper_call, text, text, integer) FROM PUBLIC;
COMMENT ON FUNCTION keeper_idempotency(keeper_call, text, text, integer) IS
    'Reads a keyed call''s recorded key: raises KI2nn (a repeat whose recorded result is nn) or KI422 (the key with other parameters), or records the key when it is not there. Called by keeper_audit.';
