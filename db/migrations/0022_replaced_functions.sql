-- The functions whose results or arguments this release changes are dropped here, in the
-- release's last migration, and not in the migrations that need the change: each migration
-- before this one commits while the previous release's workers still serve, through that
-- release's functions, which call these (docs/operations.md, "Restart, reload, upgrade"). In
-- this migration's transaction db/functions/ defines them again, and the operations' functions
-- also under the previous release's arguments (keeper_previous_release.sql), so that its workers
-- find every function they call until the upgrade restarts them. Likewise a table whose shape
-- the new functions need and the previous release's functions cannot use changes here, in the
-- same transaction as the functions that use it.
DROP FUNCTION IF EXISTS keeper_session(text, integer);  -- resolves a session to its login's id, without the name
DROP FUNCTION IF EXISTS keeper_idempotency(text, text, text, text, integer, text, text);  -- takes the call's frame
DROP FUNCTION IF EXISTS keeper_login_calls(text, timestamptz, timestamptz);  -- returns audit_calls rows
-- Defined again below whatever text was recorded for them.
DELETE FROM schema_definitions WHERE name IN ('keeper_session', 'keeper_idempotency', 'keeper_login_calls');

-- Sessions are stored by a hash of their id (keeper_session_hash, docs/schema.md, "Tables"): a
-- session id is a bearer credential, and a copy of the database must resume no session. The
-- column's values become their hashes in one rewrite of the table and its primary key, under
-- the table's lock for this transaction's last moments: about a second per million sessions, in
-- which calls that resolve a session wait (within lock_timeout_ms).
ALTER TABLE sessions DROP CONSTRAINT sessions_session_id_check;
ALTER TABLE sessions ALTER COLUMN session_id TYPE bytea USING sha256(convert_to(session_id, 'UTF8'));
ALTER TABLE sessions RENAME COLUMN session_id TO session_hash;
ALTER TABLE sessions ADD CONSTRAINT sessions_session_hash_check CHECK (octet_length(session_hash) = 32);
COMMENT ON COLUMN sessions.session_hash IS 'SHA-256 of the client-chosen session id (typically a GUID) in lower case: keeper_session_hash(lower(''<session id>'')). The id itself is stored nowhere.';
