-- An Idempotency-Key's fingerprint is keyed (docs/design.md, "Idempotency keys"): the call's
-- meaning holds FinishCodeProtectedOperation's protection code, short enough to guess against an
-- unkeyed SHA-256 in a copy of the database. The workers record HMAC-SHA256 under a key derived
-- from the key file's current key and compare a repeat under every key of the file, and, for the
-- keys the previous release recorded, unkeyed (keeper_idempotency). Nothing is rewritten: those
-- keys expire within key_retention_hours.
COMMENT ON COLUMN idempotency_keys.fingerprint IS 'HMAC-SHA256, under a key derived from the key file''s current key (db/secrets/sealed_secrets.hpp, keyed_digests), of the SHA-256 of the group, the operation and the business arguments as the handler reads them, without sessionId and authHash (core/domain/call_fingerprint.hpp); unkeyed in keys the previous release recorded. A repeat with another fingerprint is refused (422).';
