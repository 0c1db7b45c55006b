-- One hour-led index for the caller of an audit row, whichever column names it: (hour, login_id,
-- login, at), with no predicate. It replaces the two partial indexes, (hour, login_id, at) where
-- login_id is set and (hour, login, at) where login is set (migration 0030 drops them), and
-- answers both of keeper_login_calls' reads: "login_id = $1" and "login_id IS NULL AND login = $1"
-- are conditions on its leading columns after the hour. Every call's insert opens each index of
-- its partition and tests each partial index's predicate, also those its row does not enter: one
-- index instead of two spares a SetAccountPermits 2.6 % of its database instructions
-- (bench/history.md, "The audit row's one caller index"). A row that names no caller
-- (an unknown session) now has an entry too: a few bytes, at the same current hour's pages.
--
-- Declared ON ONLY the parent, as 0011's and 0017's were: keeperctl migrate builds each existing
-- partition's share CONCURRENTLY and attaches it before 0030 drops the indexes it replaces
-- (db/schema/partition_indexes.hpp), so a login's calls are read through an index throughout.
CREATE INDEX audit_log_hour_caller_idx ON ONLY audit_log
    ((date_trunc('hour', at AT TIME ZONE 'UTC')), login_id, login, at);
COMMENT ON INDEX audit_log_hour_caller_idx IS
    'One login''s calls, hour by hour (keeper_login_calls), by login_id or, where no login has the row, by login: led by the hour so that inserts stay in the current hour''s pages.';
