-- keeper_recorded_fingerprint: what a keyed call's key row records of the fingerprints its frame
-- carries (db/store/pg_store.cpp, stored_fingerprints: the call's meaning keyed under each key of
-- the worker's key file, the current key's first, then unkeyed, 64 hex digits). Every keyed one,
-- side by side: a repeat sent to a host whose key file has only one of them (a key rotation
-- reaches the hosts one at a time) still matches (keeper_idempotency). Never the unkeyed digest,
-- which a copy of the database would let a short protection code be guessed against; a frame
-- of one fingerprint only (a worker without a key file, the previous release's) records that one.
-- An immutable SQL function, inlined where PL/pgSQL plans the statement: a keyed call pays two
-- string operations for it.
CREATE OR REPLACE FUNCTION keeper_recorded_fingerprint(p_fingerprints text) RETURNS bytea
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT decode(CASE WHEN strpos(p_fingerprints, ',') = 0 THEN p_fingerprints
                       ELSE replace(left(p_fingerprints, -65), ',', '') END, 'hex')
$$;
COMMENT ON FUNCTION keeper_recorded_fingerprint(text) IS
    'The fingerprint a keyed call''s key row records: every keyed digest of the frame''s comma-separated list (all but the last, unkeyed, one), side by side; the only one when there is one.';
