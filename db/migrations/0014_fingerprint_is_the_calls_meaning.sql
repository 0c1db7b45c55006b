-- An Idempotency-Key's fingerprint is the call's meaning, not its decoded arguments: the session
-- id and authHash are left out (the key's scope is the caller they prove) and values count as the
-- handler reads them (docs/api-decisions.md, "Idempotency-Key"). Only the column's description
-- changes.
COMMENT ON COLUMN idempotency_keys.fingerprint IS 'SHA-256 of the group, the operation and the business arguments as the handler reads them, without sessionId and authHash (core/domain/call_fingerprint.hpp): a repeat with another fingerprint is refused (422).';
