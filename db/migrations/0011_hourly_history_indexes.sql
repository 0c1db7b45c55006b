-- The history's per-login, per-card and per-purse indexes lead with the hour of the row's time
-- (docs/schema.md, "Indexes on the history"). An index led by the login (or card, or purse) takes
-- every insert at a random leaf of the whole month's index: once a month of it no longer fits in
-- memory, each call reads a page from disk and dirties one more. Led by the hour, the inserts of a
-- call all land in the current hour's part of the index, which stays in memory however large the
-- month grows; a DBA's question about one login probes each hour of the range it asks about
-- (keeper_login_calls, keeper_card_topups, keeper_purse_topups in db/functions/).
--
-- ON ONLY: this transaction declares each index on the parent alone, which is instant; keeperctl
-- migrate then builds each existing partition's share CONCURRENTLY, outside any transaction, so
-- the calls go on writing meanwhile, and attaches it (db/schema/partition_indexes.hpp).
-- Partitions made from now on get theirs as they are made. 0012 retires the indexes these replace.
-- The hour is taken in UTC so that the expression is immutable, as an index needs.

CREATE INDEX audit_log_hour_login_idx ON ONLY audit_log ((date_trunc('hour', at AT TIME ZONE 'UTC')), login, at)
    WHERE login IS NOT NULL;
COMMENT ON INDEX audit_log_hour_login_idx IS
    'One login''s calls, hour by hour (keeper_login_calls): led by the hour so that inserts stay in the current hour''s pages.';

CREATE INDEX topups_hour_card_idx ON ONLY topups ((date_trunc('hour', created_at AT TIME ZONE 'UTC')), card_id, created_at);
COMMENT ON INDEX topups_hour_card_idx IS
    'One card''s top-ups, hour by hour (keeper_card_topups); the daily limit reads card_recent_topups instead.';

CREATE INDEX topups_hour_purse_idx ON ONLY topups ((date_trunc('hour', created_at AT TIME ZONE 'UTC')), purse, created_at);
COMMENT ON INDEX topups_hour_purse_idx IS
    'One purse''s top-ups, hour by hour (keeper_purse_topups).';
