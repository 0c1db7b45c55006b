-- The 24-hour limit of a card reads a small window table instead of the partitioned topups.
-- PostgreSQL 15 locks every partition (and its indexes) that a cached plan names each time it
-- runs, pruning or not: with topups partitioned by month and five years kept, the limit's sum
-- inside keeper_topup would lock some 300 relations per top-up (measured: top-ups at 0.4-0.6x of
-- the baseline and falling as partitions accumulate). card_recent_topups holds each top-up of the
-- last day again (card, time, amount), written in the same transaction as its topups row, so the
-- sum stays exact; keeperctl maintain deletes rows older than 25 hours. Concurrent top-ups of one
-- card are serialised by a transaction advisory lock on the card (as 0004 does for Authenticate)
-- instead of SELECT ... FOR UPDATE, which needs UPDATE rights the workers' role does not have.

CREATE TABLE card_recent_topups (
    card_id    bigint        NOT NULL,
    created_at timestamptz   NOT NULL,
    amount     numeric(14,2) NOT NULL
);
CREATE INDEX card_recent_topups_card_created_at_idx ON card_recent_topups (card_id, created_at) INCLUDE (amount);
-- Rows arrive in time order: a BRIN index finds the old ones for the purge at little cost per insert.
CREATE INDEX card_recent_topups_created_at_brin ON card_recent_topups USING brin (created_at);
COMMENT ON TABLE card_recent_topups IS 'The top-ups of the last day again, for the cards'' 24-hour limit (keeper_topup sums it under the card''s lock). Written with each topups row; rows older than 25 hours are deleted by keeperctl maintain. No key: a transient window, the record is topups.';
COMMENT ON COLUMN card_recent_topups.card_id IS 'The card charged (as topups.card_id).';
COMMENT ON COLUMN card_recent_topups.created_at IS 'As topups.created_at.';
COMMENT ON COLUMN card_recent_topups.amount IS 'As topups.amount.';

INSERT INTO card_recent_topups (card_id, created_at, amount)
SELECT card_id, created_at, amount FROM topups WHERE created_at > now() - interval '25 hours';

CREATE OR REPLACE FUNCTION keeper_topup(p_request_id text, p_operation text, p_session text, p_ttl_seconds integer,
                                        p_purse text, p_card_id bigint, p_amount numeric, p_max_amount numeric,
                                        p_default_daily_limit numeric)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
    s record := keeper_session(p_session, p_ttl_seconds);
    c record;
BEGIN
    IF s.code <> 0 THEN
        RETURN keeper_audit(p_request_id, p_operation, s.login, NULL, s.code);
    END IF;
    -- Concurrent top-ups of one card sum exactly against its daily limit.
    PERFORM pg_advisory_xact_lock(2, hashint8(p_card_id));
    SELECT blocked, daily_limit INTO c FROM cards WHERE id = p_card_id AND login_id = s.login_id;
    IF NOT FOUND OR c.blocked OR NOT EXISTS (SELECT 1 FROM purses WHERE purse = p_purse AND login_id = s.login_id) THEN
        RETURN keeper_audit(p_request_id, p_operation, s.login, NULL, 5);  -- a blocked card answers as a missing one
    END IF;
    IF p_amount > p_max_amount OR
       (SELECT COALESCE(sum(amount), 0) FROM card_recent_topups
         WHERE card_id = p_card_id AND created_at > now() - interval '24 hours') + p_amount
       > COALESCE(c.daily_limit, p_default_daily_limit) THEN
        RETURN keeper_audit(p_request_id, p_operation, s.login, NULL, 9);
    END IF;
    INSERT INTO topups (card_id, purse, amount, request_id) VALUES (p_card_id, p_purse, p_amount, p_request_id);
    INSERT INTO card_recent_topups (card_id, created_at, amount) VALUES (p_card_id, now(), p_amount);
    UPDATE purses SET balance = balance + p_amount WHERE purse = p_purse;
    RETURN keeper_audit(p_request_id, p_operation, s.login, NULL, 0);
END $$;
ALTER FUNCTION keeper_topup(text, text, text, integer, text, bigint, numeric, numeric, numeric) SET enable_seqscan = off;
