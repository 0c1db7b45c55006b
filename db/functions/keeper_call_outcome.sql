-- keeper_call_outcome: what a call that ended "outcome unknown" did, read from its own audit row.
-- A worker whose connection broke after it sent a call's statement asks this once the original
-- transaction can no longer commit (docs/design.md, "In-doubt calls"): the result code the call
-- recorded, or NULL when the call did not happen. The workers may not read audit_log, so this runs
-- with its owner's rights and answers one request id, no more; only keeper_worker may run it
-- (keeperctl roles). A call's row is at most minutes old: the time bound prunes every older
-- monthly partition.
CREATE OR REPLACE FUNCTION keeper_call_outcome(p_request_id text)
RETURNS integer LANGUAGE sql STABLE SECURITY DEFINER SET search_path FROM CURRENT AS $$
    SELECT result FROM audit_log
     WHERE request_id = p_request_id AND at > now() - interval '1 day'
     ORDER BY at DESC LIMIT 1
$$;
REVOKE ALL ON FUNCTION keeper_call_outcome(text) FROM PUBLIC;
COMMENT ON FUNCTION keeper_call_outcome(text) IS
    'The result code recorded by the call with this request id in the last day, or NULL: how a worker resolves a call whose connection broke after its statement was sent.';
