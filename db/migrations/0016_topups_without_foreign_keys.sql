-- A top-up's card and purse are checked by keeper_topup, not by foreign keys (docs/schema.md,
-- "Foreign keys"). keeper_topup reads the card and the purse, owned by the caller, in the same
-- transaction and under the card's advisory lock before it inserts the row, and cards and purses
-- are never deleted: keeper_refuse_delete refuses DELETE and TRUNCATE on both tables, for every
-- role, which the foreign keys did only for rows with top-ups. Each foreign key cost every
-- top-up a lookup of the referenced row that also locked it (FOR KEY SHARE: a write to the row's
-- page and a WAL record), about 7% of the database's time per top-up (docs/performance.md).
-- Dropping them takes each table's lock for an instant and rewrites nothing.
ALTER TABLE topups DROP CONSTRAINT IF EXISTS topups_card_id_fkey;
ALTER TABLE topups DROP CONSTRAINT IF EXISTS topups_purse_fkey;
