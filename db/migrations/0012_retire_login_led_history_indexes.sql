-- Retires the history indexes that 0011's hour-led ones replace (docs/schema.md, "Indexes on the
-- history"). keeperctl migrate built 0011's indexes on every partition before it came here; the
-- check below stops the run, changing nothing, should one still be invalid (built by hand, or by
-- a migrator that did not). Dropping an index takes the parent's exclusive lock for an instant.
--
-- Without (card_id, created_at) and (purse) leading indexes, deleting a card or purse that has
-- top-ups would read every month of topups to check the foreign key: keeper never deletes either
-- (a card is blocked instead), and neither may keeper_provision.

DO $$
DECLARE
    unbuilt text;
BEGIN
    SELECT string_agg(i.indexrelid::regclass::text, ', ') INTO unbuilt FROM pg_index i
     WHERE i.indexrelid IN ('audit_log_hour_login_idx'::regclass, 'topups_hour_card_idx'::regclass,
                            'topups_hour_purse_idx'::regclass)
       AND NOT i.indisvalid;
    IF unbuilt IS NOT NULL THEN
        RAISE EXCEPTION 'not built on every partition yet: % (keeperctl maintain builds them)', unbuilt;
    END IF;
END $$;

DROP INDEX audit_log_login_at_idx;
DROP INDEX topups_card_id_created_at_idx;
DROP INDEX topups_purse_idx;
