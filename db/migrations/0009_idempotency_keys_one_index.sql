-- idempotency_keys with one index and no CHECK constraints: what a keyed call adds to its
-- transaction is one row and one index entry. Every index is a lock and an insert per call, and a
-- CHECK constraint is parsed from its stored text again by every INSERT a PL/pgSQL function runs
-- (perf over the R2k bench case: pg_strtok, 1.5% of the database's time per call). The checks'
-- rules hold without them: keeper_idempotency is the only writer, the key arrives checked (1-255
-- visible ASCII, core/wire/idempotency_key.hpp), the fingerprint is a SHA-256, and the caller is
-- a login or an application, never both (keeper_idempotency sets exactly one). So one unique
-- index over (login, app_id, key) with NULLS NOT DISTINCT holds exactly the uniqueness the two
-- partial ones held. The purge in
-- keeperctl maintain reads the table sequentially instead of by created_at, as it does for
-- card_recent_topups: the oldest rows are at the table's start, and it runs once a day.
DROP INDEX idempotency_keys_login_key_idx;
DROP INDEX idempotency_keys_app_key_idx;
DROP INDEX idempotency_keys_created_at_idx;
ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_key_check,
    DROP CONSTRAINT idempotency_keys_fingerprint_check, DROP CONSTRAINT idempotency_keys_check;
CREATE UNIQUE INDEX idempotency_keys_caller_key_idx ON idempotency_keys (login, app_id, key) NULLS NOT DISTINCT;
COMMENT ON TABLE idempotency_keys IS 'Idempotency-Keys of write calls: one row per caller (login or app_id) and key, written in the call''s own transaction; a repeat answers the recorded result. Deleted by keeperctl maintain after key_retention_hours.';
