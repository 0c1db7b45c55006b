-- The calls nginx sent again: a call whose connection broke is sent once more, to the workers'
-- retry socket, and that attempt records its request id here before it settles the first one
-- (docs/design.md, "In-doubt calls"). Every attempt of a call takes the call's claim and then
-- looks here (keeper_claim): a call not listed has had no other attempt that could have committed,
-- so the attempt need not look for the call's audit row, which would lock every partition of
-- audit_log on every call. A small table of the last day's retried calls; keeperctl maintain
-- deletes rows older than 25 hours.
CREATE TABLE retried_calls (
    request_id text        PRIMARY KEY,
    at         timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE retried_calls IS 'Request ids of the calls nginx sent again (to the retry socket) in the last day, each recorded before its first attempt is settled; an attempt of a listed call looks for the call''s audit row before it runs (keeper_claim). Rows older than 25 hours are deleted by keeperctl maintain.';
COMMENT ON COLUMN retried_calls.request_id IS 'The call''s request id, as in its audit row.';
COMMENT ON COLUMN retried_calls.at IS 'When the call came again.';
