-- A call /call-outcome answered "none" for can no longer commit, on any host (docs/design.md,
-- "A call decided as not applied"). The look lists the request id here, in a transaction that
-- holds the call's lock, once no attempt of the call can still commit: every attempt that begins
-- a second or more after the call's time holds the same lock, shared, to its commit, and one that
-- began earlier is seen open in pg_stat_activity. keeper_claim refuses an attempt of a listed call
-- (SQLSTATE KD002). Hosts' budgets and clocks only say when a look begins to decide
-- (core/pipeline/call_outcome.cpp), never whether its answer holds.
-- keeper_login_call, the look that inferred "none" from the answering host's budget and clock,
-- gives way to keeper_decide_call; no release's workers call it.
CREATE TABLE decided_calls (
    request_id text        PRIMARY KEY,
    at         timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE decided_calls IS 'Request ids /call-outcome answered "none" for in the last day: no attempt of a listed call commits (keeper_claim raises KD002). Written by keeper_decide_call; rows older than 25 hours are deleted by keeperctl maintain.';
COMMENT ON COLUMN decided_calls.request_id IS 'The call''s request id, as an attempt''s audit row would hold it.';
COMMENT ON COLUMN decided_calls.at IS 'When the look decided it.';
DROP FUNCTION IF EXISTS keeper_login_call(bytea, integer, text, timestamptz, timestamptz);
DELETE FROM schema_definitions WHERE name = 'keeper_login_call';
