-- An Idempotency-Key's fingerprint is keyed (docs/design.md, "Idempotency keys"): the call's
-- meaning holds FinishCodeProtectedOperation's protection code, short enough to guess against an
-- unkeyed SHA-256 in a copy of the database. The workers record HMAC-SHA256 under a key derived
-- from each key of the key file, side by side (keeper_recorded_fingerprint), so that a repeat on a
-- host that has only one of those keys (a rotation reaches the hosts one at a time) still
-- matches, and compare a repeat under every key of the file, and, for the keys the previous
-- release recorded, unkeyed (keeper_idempotency). Nothing is rewritten: those keys expire within
-- key_retention_hours.
COMMENT ON COLUMN idempotency_keys.fingerprint IS 'HMAC-SHA256 digests, 32 bytes each side by side, one under a key derived from each key of the recording worker''s key file (db/secrets/sealed_secrets.hpp, keyed_digests), of the SHA-256 of the group, the operation and the business arguments as the handler reads them, without sessionId and authHash (core/domain/call_fingerprint.hpp); the unkeyed SHA-256 alone in keys the previous release recorded. A repeat that matches none of them is refused (422).';
