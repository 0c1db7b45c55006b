-- The W3C trace a call belongs to reaches the database (docs/api-decisions.md, "Trace context"):
-- the call's frame carries its trace id, keeper_claim names the call's server process by a
-- client's trace in pg_stat_activity while the call runs, and keeper_audit records it in the audit row when a
-- client sent it. A trace nginx started has the request id for its id, which the row holds
-- already: trace_id stays NULL then, and the view audit_calls shows the request id in its place.
--
-- Nothing is rewritten: the type gains an attribute and the history a nullable column without a
-- default. No index: a DBA bounds a trace's rows by time, which the primary key (at, id) finds
-- (docs/schema.md, "Queries a DBA runs"), and an index would cost every call of a traced client
-- a second random insert. The previous release's workers never use keeper_call (their functions
-- take separate arguments; db/functions/keeper_previous_release.sql).
ALTER TYPE keeper_call ADD ATTRIBUTE trace_id text;
COMMENT ON TYPE keeper_call IS 'The frame of a call that writes an audit row: request id, operation, Idempotency-Key, fingerprint, key_used, trace id. First argument of every operation''s function; read by keeper_claim and keeper_audit.';

ALTER TABLE audit_log ADD COLUMN trace_id text;
COMMENT ON COLUMN audit_log.trace_id IS 'The W3C trace id (32 hex digits) of the client''s traceparent, when it sent one; NULL when nginx started the trace (its id is then request_id) and in rows written before this column existed. audit_calls shows COALESCE(trace_id, request_id).';

CREATE OR REPLACE VIEW audit_calls AS
SELECT a.id, a.at, COALESCE(l.login, a.login) AS login, a.app_id, a.operation, a.result, a.request_id,
       COALESCE(a.trace_id, a.request_id) AS trace_id
  FROM audit_log a LEFT JOIN logins l ON l.id = a.login_id;
COMMENT ON VIEW audit_calls IS 'audit_log with each row''s login by name (login_id resolved through logins, else the name the row holds) and its trace id (the client''s, else the request id: the trace nginx started). For one login''s calls use keeper_login_calls, which reads the hour-led indexes.';
