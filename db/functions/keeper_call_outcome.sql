-- keeper_call_outcome: what a call that ended "outcome unknown" did, read from its own audit row.
-- A worker whose connection broke after it sent a call's statement asks this once the original
-- transaction can no longer commit (docs/design.md, "In-doubt calls"): the result code the call
-- recorded, or NULL when the call did not happen. The workers may not read audit_log, so this runs
-- with its owner's rights and answers one request id, no more; only keeper_worker may run it
-- (keeperctl roles). A call's row is at most minutes old: the time bound prunes every older
-- monthly partition. Every call's claim asks it too (keeper_claim), so it is PL/pgSQL, whose plan
-- a connection keeps: an SQL function that is not inlined (a SECURITY DEFINER one never is) is
-- planned again on every call, over every partition of audit_log. And the query is an aggregate,
-- neither ORDER BY nor LIMIT: a call has one row (its claim sees to it), and the generic plan of
-- either chose a scan that stops at the first row it meets (the primary key backwards through the
-- whole day, or the partition sequentially) and so read every row of the day whenever the call had
-- none, as every first attempt has (46 ms a call at 100 000 rows a day); an aggregate reads the
-- rows of the request id's index alone, and enable_seqscan is off for it (as for keeper_topup's
-- sum) whatever the statistics say of the column.
CREATE OR REPLACE FUNCTION keeper_call_outcome(p_request_id text)
RETURNS integer LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path FROM CURRENT SET enable_seqscan = off AS $$
BEGIN
    RETURN (SELECT max(result) FROM audit_log
             WHERE request_id = p_request_id AND at > now() - interval '1 day');
END $$;
REVOKE ALL ON FUNCTION keeper_call_outcome(text) FROM PUBLIC;
COMMENT ON FUNCTION keeper_call_outcome(text) IS
    'The result code recorded by the call with this request id in the last day, or NULL: how a worker resolves a call whose connection broke after its statement was sent.';
