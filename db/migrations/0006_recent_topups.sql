-- supersedes sha256:ceca0a2aae5394ff6bb3278b36612fde7d66b73f96527cc97e80f55df3ca3e9e
-- (its earlier text also rewrote keeper_topup, which lives in db/functions/ now)
--
-- The 24-hour limit of a card reads a small window table instead of the partitioned topups.
-- PostgreSQL 15 locks every partition (and its indexes) that a cached plan names each time it
-- runs, pruning or not: with topups partitioned by month and five years kept, the limit's sum
-- inside keeper_topup would lock some 300 relations per top-up (measured: top-ups at 0.4-0.6x of
-- the baseline and falling as partitions accumulate). card_recent_topups holds each top-up of the
-- last day again (card, time, amount), written in the same transaction as its topups row, so the
-- sum stays exact; keeperctl maintain deletes rows older than 25 hours. Concurrent top-ups of one
-- card are serialised by a transaction advisory lock on the card (as keeper_authenticate does for a login)
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
