-- supersedes sha256:a20ce31a56226ca55eb273e4fbdb95f8a37bdce45867fe7b3cd8de5857e53650
-- (its earlier text also rewrote keeper_authenticate, which lives in db/functions/ now)
--
-- History for the long run: audit_log and topups become range-partitioned by month, managed by
-- pg_partman (Debian: postgresql-15-partman), which creates partitions ahead of time and applies
-- retention when `keeperctl maintain` calls it (docs/schema.md, "Partitions and retention").
--
-- The conversion happens in place and in this one transaction: each old table is renamed, a
-- partitioned table with the same columns takes its name, pg_partman creates monthly partitions
-- from the month of the oldest row to three months ahead (plus a default partition, so that an
-- insert never fails for want of a partition), every row is copied across with its id, and the
-- old table is dropped. It holds an exclusive lock on both tables until it commits: on a large
-- database run it in a maintenance window (docs/operations.md measures its rate).
--
-- CREATE EXTENSION pg_partman needs a superuser: on a managed database a DBA runs the first two
-- statements beforehand and keeperctl migrate (as the schema owner) skips them.

CREATE SCHEMA IF NOT EXISTS partman;
CREATE EXTENSION IF NOT EXISTS pg_partman SCHEMA partman;

-- audit_log ---------------------------------------------------------------------------------

ALTER TABLE audit_log RENAME TO audit_log_unpartitioned;
ALTER TABLE audit_log_unpartitioned RENAME CONSTRAINT audit_log_pkey TO audit_log_unpartitioned_pkey;
ALTER INDEX audit_log_login_at_idx RENAME TO audit_log_unpartitioned_login_at_idx;
ALTER INDEX audit_log_at_brin RENAME TO audit_log_unpartitioned_at_brin;

CREATE TABLE audit_log (
    id         bigint      GENERATED ALWAYS AS IDENTITY,
    at         timestamptz NOT NULL DEFAULT now(),
    login      text,
    app_id     text,
    operation  text        NOT NULL,
    result     integer     NOT NULL,
    request_id text        NOT NULL,
    PRIMARY KEY (at, id)
) PARTITION BY RANGE (at);
-- The key (at, id) also answers "calls between these times"; the other two are a DBA's usual
-- questions: one login's calls, and the call behind a request id from a log line or a client.
CREATE INDEX audit_log_login_at_idx ON audit_log (login, at) WHERE login IS NOT NULL;
CREATE INDEX audit_log_request_id_idx ON audit_log (request_id);
COMMENT ON TABLE audit_log IS 'One row per call that used the database, written in the call''s own transaction. Never holds secrets, hashes or codes. Partitioned by month of "at" (pg_partman); keeperctl maintain drops months older than audit_retention_months. Workers may only INSERT.';
COMMENT ON COLUMN audit_log.id IS 'Surrogate key, in commit order per connection; unique with "at".';
COMMENT ON COLUMN audit_log.at IS 'Start of the call''s transaction; the partition key.';
COMMENT ON COLUMN audit_log.login IS 'The login the call acted as (resolved from the session, or the login Authenticate tried); NULL when none was resolved.';
COMMENT ON COLUMN audit_log.app_id IS 'The application the call named, when it named one.';
COMMENT ON COLUMN audit_log.operation IS 'Operation name, e.g. Authenticate.';
COMMENT ON COLUMN audit_log.result IS 'The int result code returned (docs/api.md).';
COMMENT ON COLUMN audit_log.request_id IS 'Request id of the call, as in keeper''s log line.';

SELECT partman.create_parent(
    p_parent_table := current_schema() || '.audit_log', p_control := 'at', p_type := 'native',
    p_interval := 'monthly', p_premake := 3, p_jobmon := false,
    p_start_partition := (SELECT date_trunc('month', COALESCE(min(at), now()))::text FROM audit_log_unpartitioned));

INSERT INTO audit_log (id, at, login, app_id, operation, result, request_id) OVERRIDING SYSTEM VALUE
SELECT id, at, login, app_id, operation, result, request_id FROM audit_log_unpartitioned;
SELECT setval(pg_get_serial_sequence('audit_log', 'id'), max(id)) FROM audit_log HAVING max(id) IS NOT NULL;
DROP TABLE audit_log_unpartitioned;

-- topups ------------------------------------------------------------------------------------

ALTER TABLE topups RENAME TO topups_unpartitioned;
ALTER TABLE topups_unpartitioned RENAME CONSTRAINT topups_pkey TO topups_unpartitioned_pkey;
ALTER TABLE topups_unpartitioned RENAME CONSTRAINT topups_card_id_fkey TO topups_unpartitioned_card_id_fkey;
ALTER TABLE topups_unpartitioned RENAME CONSTRAINT topups_purse_fkey TO topups_unpartitioned_purse_fkey;
ALTER TABLE topups_unpartitioned RENAME CONSTRAINT topups_amount_check TO topups_unpartitioned_amount_check;
ALTER INDEX topups_card_id_created_at_idx RENAME TO topups_unpartitioned_card_id_created_at_idx;
ALTER INDEX topups_purse_idx RENAME TO topups_unpartitioned_purse_idx;

CREATE TABLE topups (
    id         bigint        GENERATED ALWAYS AS IDENTITY,
    card_id    bigint        NOT NULL REFERENCES cards (id),
    purse      text          NOT NULL REFERENCES purses (purse),
    amount     numeric(14,2) NOT NULL CHECK (amount > 0),
    created_at timestamptz   NOT NULL DEFAULT now(),
    request_id text          NOT NULL,
    PRIMARY KEY (created_at, id)
) PARTITION BY RANGE (created_at);
-- (card_id, created_at): the 24-hour limit's sum, which touches the current month's partition
-- (and the previous one for a day after a month starts) plus the default.
CREATE INDEX topups_card_id_created_at_idx ON topups (card_id, created_at);
CREATE INDEX topups_purse_idx ON topups (purse);
CREATE INDEX topups_request_id_idx ON topups (request_id);
COMMENT ON TABLE topups IS 'Every successful TopupPurseFromAtmCard: one row per answer 0. Partitioned by month of created_at (pg_partman); keeperctl maintain drops months older than topup_retention_months.';
COMMENT ON COLUMN topups.id IS 'Surrogate key; unique with created_at.';
COMMENT ON COLUMN topups.card_id IS 'The card charged.';
COMMENT ON COLUMN topups.purse IS 'The purse credited.';
COMMENT ON COLUMN topups.amount IS 'Amount, exact decimal.';
COMMENT ON COLUMN topups.created_at IS 'When; the partition key. The card''s 24-hour limit sums rows newer than a day.';
COMMENT ON COLUMN topups.request_id IS 'Request id of the call (also in the audit log).';

SELECT partman.create_parent(
    p_parent_table := current_schema() || '.topups', p_control := 'created_at', p_type := 'native',
    p_interval := 'monthly', p_premake := 3, p_jobmon := false,
    p_start_partition := (SELECT date_trunc('month', COALESCE(min(created_at), now()))::text FROM topups_unpartitioned));

INSERT INTO topups (id, card_id, purse, amount, created_at, request_id) OVERRIDING SYSTEM VALUE
SELECT id, card_id, purse, amount, created_at, request_id FROM topups_unpartitioned;
SELECT setval(pg_get_serial_sequence('topups', 'id'), max(id)) FROM topups HAVING max(id) IS NOT NULL;
DROP TABLE topups_unpartitioned;

-- Partitions are made ahead of the clock, whatever the newest row says (keeperctl maintain sets
-- retention from the configuration on every run).
UPDATE partman.part_config SET infinite_time_partitions = true
 WHERE parent_table IN (current_schema() || '.audit_log', current_schema() || '.topups');
