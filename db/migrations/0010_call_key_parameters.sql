-- A call's Idempotency-Key reaches keeper_audit as three parameters every write function passes on
-- (key, fingerprint, key_used) instead of two settings keeper_with_key set for the transaction:
-- set_config(..., true) made PostgreSQL walk every setting at the end of each keyed transaction,
-- and the extra function ran in every write, keyed or not. The functions with new arguments are
-- dropped here under their old ones; db/functions/ defines them again after this migration, in
-- its transaction. keeper_with_key is retired.
DROP FUNCTION IF EXISTS keeper_with_key(text, text, text);
DELETE FROM schema_definitions WHERE name = 'keeper_with_key';
DROP FUNCTION IF EXISTS keeper_audit(text, text, text, text, integer);
DROP FUNCTION IF EXISTS keeper_idempotency(text, text, text, text, integer);
DROP FUNCTION IF EXISTS keeper_authenticate(text, text, text, text, boolean, integer, integer);
DROP FUNCTION IF EXISTS keeper_set_account_permits(text, text, text, integer, boolean, boolean, boolean);
DROP FUNCTION IF EXISTS keeper_set_contact_permits(text, text, text, integer, text, boolean, boolean, boolean, boolean);
DROP FUNCTION IF EXISTS keeper_code_hash(text, text, text, integer, text, bigint, integer);
DROP FUNCTION IF EXISTS keeper_confirm_transfer(text, text, bigint, text, bigint, boolean, integer);
DROP FUNCTION IF EXISTS keeper_confirm_task(text, text, bigint, text, integer, integer, boolean, integer);
DROP FUNCTION IF EXISTS keeper_topup(text, text, text, integer, text, bigint, numeric, numeric, numeric);
DROP FUNCTION IF EXISTS keeper_rename_profile(text, text, text, integer, integer, text);
DROP FUNCTION IF EXISTS keeper_subscribe_device(text, text, text, integer, text, text, integer, integer);
DROP FUNCTION IF EXISTS keeper_subscribe_app_device(text, text, text, text, text, text, integer, integer);
DROP FUNCTION IF EXISTS keeper_mark_sms_delivered(text, text, text, integer, integer);
