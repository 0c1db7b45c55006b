-- The call's deadline travels in its frame (docs/design.md, "One deadline per call"): the worker
-- passes the moment its call must be answered by (the request id's time plus call_budget_ms), and
-- keeper_claim refuses an attempt that begins later (KD001) by comparing it with the database's
-- clock. Before, keeper_claim rebuilt it from the request id's digits and a setting of the
-- worker's connection, with two regular expressions on every call. The previous release's workers
-- pass no deadline (NULL: no check, as they had none); their functions pass the call on with it
-- (db/functions/keeper_previous_release.sql), in this migration's transaction.
ALTER TYPE keeper_call ADD ATTRIBUTE deadline timestamptz;
COMMENT ON TYPE keeper_call IS 'The frame of a call that writes an audit row: request id, operation, Idempotency-Key, fingerprint, key_used, trace id, deadline. First argument of every operation''s function; read by keeper_claim and keeper_audit.';
