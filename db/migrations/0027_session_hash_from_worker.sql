-- The workers pass a session's hash, not its id: each function that resolves a session takes
-- p_session_hash bytea where it took p_session text (db/functions/keeper_session.sql). A
-- function's arguments are not replaced in place: the signatures with the id are dropped here,
-- and db/functions/ defines the new ones in this transaction (the last migration of a run defines
-- every changed function), so no worker of this release finds the id's signature and none of the
-- previous release misses its own (keeper_previous_release.sql, defined again in this transaction,
-- hashes the id those workers pass). The grant on keeper_login_call follows its new signature
-- (keeperctl roles, which keeper-migrate.service runs after this).
DROP FUNCTION IF EXISTS keeper_session(text, integer);
DROP FUNCTION IF EXISTS keeper_authenticate(keeper_call, text, text, boolean, integer, integer);
DROP FUNCTION IF EXISTS keeper_check_session(keeper_call, text, integer, text);
DROP FUNCTION IF EXISTS keeper_code_hash(keeper_call, text, integer, text, bigint, integer);
DROP FUNCTION IF EXISTS keeper_login_call(text, integer, text, timestamptz, timestamptz);
DROP FUNCTION IF EXISTS keeper_mark_sms_delivered(keeper_call, text, integer, integer);
DROP FUNCTION IF EXISTS keeper_rename_profile(keeper_call, text, integer, integer, text);
DROP FUNCTION IF EXISTS keeper_set_account_permits(keeper_call, text, integer, boolean, boolean, boolean);
DROP FUNCTION IF EXISTS keeper_set_contact_permits(keeper_call, text, integer, text, boolean, boolean, boolean, boolean);
DROP FUNCTION IF EXISTS keeper_subscribe_device(keeper_call, text, integer, text, text, integer, integer);
DROP FUNCTION IF EXISTS keeper_topup(keeper_call, text, integer, text, bigint, numeric, numeric, numeric);
-- Defined again below whatever text was recorded for them.
DELETE FROM schema_definitions
 WHERE name IN ('keeper_session', 'keeper_authenticate', 'keeper_check_session', 'keeper_code_hash',
                'keeper_login_call', 'keeper_mark_sms_delivered', 'keeper_rename_profile',
                'keeper_set_account_permits', 'keeper_set_contact_permits', 'keeper_subscribe_device',
                'keeper_topup', 'keeper_previous_release');
