-- keeper_call_older_than: whether nginx first saw the call with this request id at least p_age
-- before now, by the database's clock. A request id of keeper's begins with 13 digits of the
-- milliseconds when nginx first saw the call (nginx/keeper-request-id.conf), so in byte order ids
-- sort by time, and the id's first 13 characters compare with the clock's milliseconds as text:
-- no cast that an id of another shape would fail, and about 0.4 µs where a look in a table costs
-- ten times that. An id of another shape (a test's, a call by hand) that begins with a letter is
-- never older, and so never decided (keeper_decide_call) nor looked up (keeper_claim): the two ask
-- this one question, with ages a second apart (docs/design.md, "A call decided as not applied").
-- Plain SQL, VOLATILE as clock_timestamp is, so PL/pgSQL inlines it into the expression that asks it.
CREATE OR REPLACE FUNCTION keeper_call_older_than(p_request_id text, p_age interval)
RETURNS boolean LANGUAGE sql VOLATILE AS $$
    SELECT left(p_request_id, 13) COLLATE "C" <= (extract(epoch FROM clock_timestamp() - p_age) * 1000)::bigint::text
$$;
COMMENT ON FUNCTION keeper_call_older_than(text, interval) IS
    'Whether the request id''s time (its first 13 digits, milliseconds) is at least p_age before the database''s clock; false for an id that begins with a letter. Inlined into keeper_claim_needed''s expression.';
