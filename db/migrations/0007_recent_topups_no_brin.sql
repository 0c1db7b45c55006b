-- The 24-hour sum of keeper_topup runs from PL/pgSQL, which after five calls keeps a generic plan:
-- one made without knowing the card. For that plan PostgreSQL judged "every row of the last 24
-- hours by the BRIN index on created_at, then keep this card's" cheaper than the (card_id,
-- created_at) B-tree, so each top-up read the whole day's top-ups of every card (measured: 0.9 ms
-- of a 1.2 ms call with 10 000 rows in the window, growing with the day). Without the BRIN index
-- the B-tree is the only way in (keeper_topup runs with enable_seqscan off). The purge in
-- keeperctl maintain, the BRIN's one user, reads the table sequentially instead: it runs daily
-- over one day of rows.
DROP INDEX card_recent_topups_created_at_brin;
