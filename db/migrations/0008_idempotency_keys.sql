-- The Idempotency-Key of write calls (docs/api-decisions.md, "Idempotency-Key"). A call made with
-- a key records here, in its own transaction (keeper_audit -> keeper_idempotency), who called, the
-- key, the operation, a fingerprint of its parameters and its result; a repeat by the same caller
-- with the same key answers that result and changes nothing. The key's uniqueness must hold for as
-- long as a key is kept, so the table is not partitioned by time (a partition's unique index
-- would only cover its own days): keeperctl maintain deletes rows past key_retention_hours in
-- batches, found by the B-tree on created_at, which grows at its right edge.
CREATE TABLE idempotency_keys (
    login       text,
    app_id      text,
    key         text        NOT NULL CHECK (octet_length(key) BETWEEN 1 AND 255),
    operation   text        NOT NULL,
    fingerprint bytea       NOT NULL CHECK (octet_length(fingerprint) = 32),
    result      integer     NOT NULL,
    request_id  text        NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    CHECK (num_nonnulls(login, app_id) = 1)
);
CREATE UNIQUE INDEX idempotency_keys_login_key_idx ON idempotency_keys (login, key) WHERE login IS NOT NULL;
CREATE UNIQUE INDEX idempotency_keys_app_key_idx ON idempotency_keys (app_id, key) WHERE app_id IS NOT NULL;
CREATE INDEX idempotency_keys_created_at_idx ON idempotency_keys (created_at);
COMMENT ON TABLE idempotency_keys IS 'Idempotency-Keys of write calls: one row per caller and key, written in the call''s own transaction; a repeat answers the recorded result. Deleted by keeperctl maintain after key_retention_hours.';
COMMENT ON COLUMN idempotency_keys.login IS 'The caller, for calls made in a session or by Authenticate: the login (lower case). NULL for an application''s call.';
COMMENT ON COLUMN idempotency_keys.app_id IS 'The caller, for calls an application makes for its users (SubscribeAppWithTagAndLocale). NULL otherwise.';
COMMENT ON COLUMN idempotency_keys.key IS 'The Idempotency-Key header as the client sent it: 1-255 visible ASCII characters, unique per caller.';
COMMENT ON COLUMN idempotency_keys.operation IS 'The operation the key was first used with.';
COMMENT ON COLUMN idempotency_keys.fingerprint IS 'SHA-256 of the group, operation and decoded arguments (core/domain/call_fingerprint.hpp): a repeat with another fingerprint is refused (422).';
COMMENT ON COLUMN idempotency_keys.result IS 'The result code the first call answered, answered again to every repeat.';
COMMENT ON COLUMN idempotency_keys.request_id IS 'The first call''s request id (its audit row''s).';
COMMENT ON COLUMN idempotency_keys.created_at IS 'When the first call ran; keeperctl maintain deletes rows older than key_retention_hours.';
