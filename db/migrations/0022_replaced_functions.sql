-- The functions whose results or arguments this release changes are dropped here, in the
-- release's last migration, and not in the migrations that need the change: each migration
-- before this one commits while the previous release's workers still serve, through that
-- release's functions, which call these (docs/operations.md, "Restart, reload, upgrade"). In
-- this migration's transaction db/functions/ defines them again, and the operations' functions
-- also under the previous release's arguments (keeper_previous_release.sql), so that its workers
-- find every function they call until the upgrade restarts them.
DROP FUNCTION IF EXISTS keeper_session(text, integer);  -- resolves a session to its login's id, without the name
DROP FUNCTION IF EXISTS keeper_idempotency(text, text, text, text, integer, text, text);  -- takes the call's frame
DROP FUNCTION IF EXISTS keeper_login_calls(text, timestamptz, timestamptz);  -- returns audit_calls rows
-- Defined again below whatever text was recorded for them.
DELETE FROM schema_definitions WHERE name IN ('keeper_session', 'keeper_idempotency', 'keeper_login_calls');
