-- The single-column CHECKs of the tables the other operations write become domains, as migration
-- 0026 did for the frequent writes, and for the same reason (bench/history.md, "The
-- table checks as domains"): a code confirmation's UPDATE of its transfer or task planned and
-- checked all six of its table's constraints, a subscription's upsert three or four. The same
-- order, in one transaction: each table's CHECK dropped first, the column given a domain with no
-- constraint over its own type, the domain's constraint added NOT VALID; no table is rewritten or
-- read, and no index rebuilt (a foreign key to a column that changes type is kept as it was).
-- A status stays a table CHECK, as does the rule over a status and its time: a column whose type
-- changes has every constraint that names it checked again by a read of its table.
ALTER TABLE protected_transfers DROP CONSTRAINT protected_transfers_id_check,
    DROP CONSTRAINT protected_transfers_amount_check, DROP CONSTRAINT protected_transfers_code_hash_check,
    DROP CONSTRAINT protected_transfers_failed_attempts_check;
ALTER TABLE telepay_profiles DROP CONSTRAINT telepay_profiles_id_check, DROP CONSTRAINT telepay_profiles_name_check;
ALTER TABLE telepay_tasks DROP CONSTRAINT telepay_tasks_id_check, DROP CONSTRAINT telepay_tasks_code_hash_check,
    DROP CONSTRAINT telepay_tasks_failed_attempts_check;
ALTER TABLE push_subscriptions DROP CONSTRAINT push_subscriptions_provider_check,
    DROP CONSTRAINT push_subscriptions_push_service_user_id_check, DROP CONSTRAINT push_subscriptions_locale_check;
ALTER TABLE app_push_subscriptions DROP CONSTRAINT app_push_subscriptions_provider_check,
    DROP CONSTRAINT app_push_subscriptions_push_service_user_id_check,
    DROP CONSTRAINT app_push_subscriptions_user_id_check, DROP CONSTRAINT app_push_subscriptions_locale_check;
ALTER TABLE push_sms DROP CONSTRAINT push_sms_id_check;

CREATE DOMAIN keeper_transfer_id AS bigint;
CREATE DOMAIN keeper_item_id AS integer;
CREATE DOMAIN keeper_code_digest AS text;
CREATE DOMAIN keeper_attempts AS integer;
CREATE DOMAIN keeper_profile_name AS text;
CREATE DOMAIN keeper_push_provider AS text;
CREATE DOMAIN keeper_push_user AS text;
CREATE DOMAIN keeper_app_user AS text;
CREATE DOMAIN keeper_locale AS integer;

ALTER TABLE protected_transfers ALTER COLUMN id TYPE keeper_transfer_id, ALTER COLUMN amount TYPE keeper_amount,
    ALTER COLUMN code_hash TYPE keeper_code_digest, ALTER COLUMN failed_attempts TYPE keeper_attempts;
ALTER TABLE telepay_profiles ALTER COLUMN id TYPE keeper_item_id, ALTER COLUMN name TYPE keeper_profile_name;
ALTER TABLE telepay_tasks ALTER COLUMN id TYPE keeper_item_id, ALTER COLUMN code_hash TYPE keeper_code_digest,
    ALTER COLUMN failed_attempts TYPE keeper_attempts;
ALTER TABLE push_subscriptions ALTER COLUMN provider TYPE keeper_push_provider,
    ALTER COLUMN push_service_user_id TYPE keeper_push_user, ALTER COLUMN locale TYPE keeper_locale;
ALTER TABLE app_push_subscriptions ALTER COLUMN provider TYPE keeper_push_provider,
    ALTER COLUMN push_service_user_id TYPE keeper_push_user, ALTER COLUMN user_id TYPE keeper_app_user,
    ALTER COLUMN locale TYPE keeper_locale;
ALTER TABLE push_sms ALTER COLUMN id TYPE keeper_item_id;

ALTER DOMAIN keeper_transfer_id ADD CONSTRAINT keeper_transfer_id_check CHECK (VALUE > 0) NOT VALID;
ALTER DOMAIN keeper_item_id ADD CONSTRAINT keeper_item_id_check CHECK (VALUE > 0) NOT VALID;
ALTER DOMAIN keeper_code_digest ADD CONSTRAINT keeper_code_digest_check
    CHECK (VALUE ~ '^sha256\$[0-9a-f]{32}\$[0-9a-f]{64}$') NOT VALID;
ALTER DOMAIN keeper_attempts ADD CONSTRAINT keeper_attempts_check CHECK (VALUE >= 0) NOT VALID;
ALTER DOMAIN keeper_profile_name ADD CONSTRAINT keeper_profile_name_check
    CHECK (char_length(VALUE) BETWEEN 1 AND 64) NOT VALID;
ALTER DOMAIN keeper_push_provider ADD CONSTRAINT keeper_push_provider_check CHECK (VALUE <> 'Undefined') NOT VALID;
ALTER DOMAIN keeper_push_user ADD CONSTRAINT keeper_push_user_check
    CHECK (char_length(VALUE) BETWEEN 1 AND 512) NOT VALID;
ALTER DOMAIN keeper_app_user ADD CONSTRAINT keeper_app_user_check CHECK (char_length(VALUE) BETWEEN 1 AND 64) NOT VALID;
ALTER DOMAIN keeper_locale ADD CONSTRAINT keeper_locale_check CHECK (VALUE IN (1033, 1049)) NOT VALID;

COMMENT ON DOMAIN keeper_transfer_id IS 'A protected transfer''s id (tranId), above zero (protected_transfers.id).';
COMMENT ON DOMAIN keeper_item_id IS 'An id the payment system gives, above zero (telepay_profiles.id, telepay_tasks.id, push_sms.id).';
COMMENT ON DOMAIN keeper_code_digest IS 'A confirmation code, salted and hashed: sha256$<salt, 32 hex>$<digest, 64 hex> (protected_transfers.code_hash, telepay_tasks.code_hash).';
COMMENT ON DOMAIN keeper_attempts IS 'Wrong codes given so far, never below zero (failed_attempts).';
COMMENT ON DOMAIN keeper_profile_name IS 'A telepay profile''s display name, 1-64 characters (telepay_profiles.name).';
COMMENT ON DOMAIN keeper_push_provider IS 'A push provider by its Provider enumeration name, never Undefined (push_subscriptions.provider, app_push_subscriptions.provider).';
COMMENT ON DOMAIN keeper_push_user IS 'A device''s id at its push provider, 1-512 characters (push_service_user_id).';
COMMENT ON DOMAIN keeper_app_user IS 'An application''s user id, 1-64 characters (app_push_subscriptions.user_id).';
COMMENT ON DOMAIN keeper_locale IS 'The language of pushes: 1033 English, 1049 Russian (locale).';
