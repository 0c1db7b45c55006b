-- Audit rows name their login by id (docs/schema.md, "Tables"; docs/performance.md, "What each
-- change bought"). Resolving a session then reads sessions alone, without the join to logins
-- that only the audit row's login name needed, and the row and its hour-led index entry are
-- narrower. The name stays in "login" only for a call that named a login no row has (an
-- Authenticate of an unknown login), and in the rows written before this migration: they are not
-- rewritten. The view audit_calls and keeper_login_calls show both kinds by name.
--
-- A large history survives it: adding a nullable column without a default rewrites nothing, and
-- the new hour-led index is declared ON ONLY the parent, as 0011's were; keeperctl migrate then
-- builds each existing partition's share CONCURRENTLY and attaches it (db/schema/partition_indexes.hpp).
-- New rows never enter audit_log_hour_login_idx (its rows have a login name), which now holds
-- the older rows and the unknown logins' calls.
ALTER TABLE audit_log ADD COLUMN login_id bigint;
COMMENT ON COLUMN audit_log.login_id IS 'The login the call acted as (resolved from the session, or the login Authenticate named), by logins.id; NULL when none was resolved.';
COMMENT ON COLUMN audit_log.login IS 'The login name a call named when no login has it (Authenticate, a wrong authHash); in rows written before login_id existed, the login of every call. Read names through audit_calls.';

CREATE INDEX audit_log_hour_login_id_idx ON ONLY audit_log ((date_trunc('hour', at AT TIME ZONE 'UTC')), login_id, at)
    WHERE login_id IS NOT NULL;
COMMENT ON INDEX audit_log_hour_login_id_idx IS
    'One login''s calls, hour by hour (keeper_login_calls): led by the hour so that inserts stay in the current hour''s pages.';

-- What a DBA reads: every audit row with its login's name, whichever column names it.
CREATE VIEW audit_calls AS
SELECT a.id, a.at, COALESCE(l.login, a.login) AS login, a.app_id, a.operation, a.result, a.request_id
  FROM audit_log a LEFT JOIN logins l ON l.id = a.login_id;
COMMENT ON VIEW audit_calls IS 'audit_log with each row''s login by name (login_id resolved through logins, else the name the row holds). For one login''s calls use keeper_login_calls, which reads the hour-led indexes.';
