-- A code confirmation carries its login by id alone (docs/schema.md, "Functions"): the second
-- step's audit row names the login by id, and keeper_audit looks the name up itself for the one
-- case that needs it, a keyed call's key row. keeper_code_hash no longer reads logins for the
-- name, and keeper_confirm_transfer and keeper_confirm_task no longer take it.
-- Their signatures change: defined again by db/functions/ after this migration.
DROP FUNCTION IF EXISTS keeper_code_hash(keeper_call, text, integer, text, bigint, integer);
DROP FUNCTION IF EXISTS keeper_confirm_transfer(keeper_call, bigint, text, bigint, boolean, integer);
DROP FUNCTION IF EXISTS keeper_confirm_task(keeper_call, bigint, text, integer, integer, boolean, integer);
