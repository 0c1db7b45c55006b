-- The two partial hour-led indexes that audit_log_hour_caller_idx (migration 0029) replaces,
-- dropped once it is valid on every partition. keeper_login_calls, defined again in this
-- transaction, reads through the new one.
DROP INDEX audit_log_hour_login_id_idx;
DROP INDEX audit_log_hour_login_idx;
