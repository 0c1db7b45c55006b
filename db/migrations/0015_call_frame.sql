-- supersedes sha256:ae48ecf6a355851d3a68a49012ac5298a12300b3114de0016f6d79ccf0ebcb21
-- The write-call frame, defined once: what every call that writes an audit row passes to its
-- function first, as one value of the keeper_call type, which keeper_audit and keeper_idempotency
-- read (docs/schema.md, "Functions"). The worker builds it from one list
-- (db/store/statements.hpp, call_frame), so a change to what the audit row records is a change
-- to this type, keeper_audit and that list, not to every operation's function and statement.
-- The previous release's functions stay under their arguments: its workers call them until the
-- upgrade restarts them (db/functions/keeper_previous_release.sql; migration 0022).
CREATE TYPE keeper_call AS (
    request_id  text,     -- the call's request id, as in keeper's log line
    operation   text,     -- the operation's name, e.g. SetAccountPermits
    key         text,     -- the Idempotency-Key header, '' when the call has none
    fingerprint text,     -- SHA-256 (hex) of the call's meaning (core/domain/call_fingerprint.hpp)
    key_used    boolean   -- the worker's second attempt: the key met the unique index
);
COMMENT ON TYPE keeper_call IS 'The frame of a call that writes an audit row: request id, operation, Idempotency-Key, fingerprint, key_used. First argument of every operation''s function; read by keeper_audit.';
