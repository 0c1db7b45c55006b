-- The write-call frame, defined once: what every call that writes an audit row passes to its
-- function first, as one value of the keeper_call type, which keeper_audit and keeper_idempotency
-- read (docs/schema.md, "Functions"). The worker builds it from one list
-- (db/store/statements.hpp, call_frame), so a change to what the audit row records is a change
-- to this type, keeper_audit and that list, not to every operation's function and statement.
-- The functions are dropped here under their old arguments; db/functions/ defines them again
-- after this migration, in its transaction.
CREATE TYPE keeper_call AS (
    request_id  text,     -- the call's request id, as in keeper's log line
    operation   text,     -- the operation's name, e.g. SetAccountPermits
    key         text,     -- the Idempotency-Key header, '' when the call has none
    fingerprint text,     -- SHA-256 (hex) of the call's meaning (core/domain/call_fingerprint.hpp)
    key_used    boolean   -- the worker's second attempt: the key met the unique index
);
COMMENT ON TYPE keeper_call IS 'The frame of a call that writes an audit row: request id, operation, Idempotency-Key, fingerprint, key_used. First argument of every operation''s function; read by keeper_audit.';

DROP FUNCTION IF EXISTS keeper_audit(text, text, text, text, integer, text, text, boolean);
DROP FUNCTION IF EXISTS keeper_idempotency(text, text, text, text, integer, text, text);
DROP FUNCTION IF EXISTS keeper_authenticate(text, text, text, text, boolean, integer, integer, text, text, boolean);
DROP FUNCTION IF EXISTS keeper_check_session(text, text, text, integer, text);
DROP FUNCTION IF EXISTS keeper_set_account_permits(text, text, text, integer, boolean, boolean, boolean, text, text, boolean);
DROP FUNCTION IF EXISTS keeper_set_contact_permits(text, text, text, integer, text, boolean, boolean, boolean, boolean, text, text, boolean);
DROP FUNCTION IF EXISTS keeper_code_hash(text, text, text, integer, text, bigint, integer, text, text, boolean);
DROP FUNCTION IF EXISTS keeper_confirm_transfer(text, text, bigint, text, bigint, boolean, integer, text, text, boolean);
DROP FUNCTION IF EXISTS keeper_confirm_task(text, text, bigint, text, integer, integer, boolean, integer, text, text, boolean);
DROP FUNCTION IF EXISTS keeper_topup(text, text, text, integer, text, bigint, numeric, numeric, numeric, text, text, boolean);
DROP FUNCTION IF EXISTS keeper_rename_profile(text, text, text, integer, integer, text, text, text, boolean);
DROP FUNCTION IF EXISTS keeper_subscribe_device(text, text, text, integer, text, text, integer, integer, text, text, boolean);
DROP FUNCTION IF EXISTS keeper_subscribe_app_device(text, text, text, text, text, text, integer, integer, text, text, boolean);
DROP FUNCTION IF EXISTS keeper_mark_sms_delivered(text, text, text, integer, integer, text, text, boolean);
