-- Autovacuum settings of the insert-only history (docs/schema.md, "Vacuum of the history").
-- audit_log and topups are only ever inserted into (retention drops whole months), so autovacuum
-- visits them only for their inserts: PostgreSQL's default does it when a fifth of the partition
-- is new, which in a month's last days means rescanning gigabytes at once, and freezes rows only
-- when they are old, so that the anti-wraparound vacuum later rewrites months of history at once.
-- Here each partition is vacuumed after a fixed number of inserts (about three hours of audit
-- rows at 100 calls a second) and freezes what it visits, so each page is written once more
-- soon after it is filled, and never again.
--
-- Set on every partition there is, and on pg_partman's template of each table, whose relation
-- options it copies to every partition it makes. ALTER TABLE ... SET takes a lock that inserts do
-- not wait for.
DO $$
DECLARE
    t record;
BEGIN
    FOR t IN
        SELECT c.oid::regclass AS rel, p.inserts
          FROM (VALUES ('audit_log', 1000000), ('topups', 100000)) p (parent, inserts)
          JOIN pg_inherits i ON i.inhparent = to_regclass(p.parent)
          JOIN pg_class c ON c.oid = i.inhrelid AND c.relkind = 'r'
        UNION ALL
        SELECT pc.template_table::regclass, p.inserts
          FROM (VALUES ('audit_log', 1000000), ('topups', 100000)) p (parent, inserts)
          JOIN partman.part_config pc ON pc.parent_table = current_schema() || '.' || p.parent
    LOOP
        EXECUTE format('ALTER TABLE %s SET (autovacuum_vacuum_insert_scale_factor = 0, '
                       'autovacuum_vacuum_insert_threshold = %s, autovacuum_freeze_min_age = 0)', t.rel, t.inserts);
    END LOOP;
END $$;
