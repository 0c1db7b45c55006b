-- keeper_mark_retried: Lists a call nginx sent again in retried_calls, in a transaction of its own
-- and before the retry looks for the attempt that holds the call's claim (keeper_claim says why
-- the order matters). Listing the call twice (a second retry) is no error.
CREATE OR REPLACE FUNCTION keeper_mark_retried(p_request_id text)
RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO retried_calls (request_id) VALUES (p_request_id) ON CONFLICT DO NOTHING;
    RETURN true;
END $$;
COMMENT ON FUNCTION keeper_mark_retried(text) IS
    'Lists a call nginx sent again (retried_calls): from then on every attempt of it that takes its claim looks for its audit row.';
