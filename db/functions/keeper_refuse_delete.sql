-- keeper_refuse_delete: cards and purses are never deleted (a card is blocked instead): the
-- top-ups refer to them by id and purse without foreign keys, which keeper_topup's own checks
-- replace (db/migrations/0016_topups_without_foreign_keys.sql). A trigger on each table refuses
-- DELETE and TRUNCATE for every role, the owner's included; a DBA who must remove one drops the
-- trigger knowingly.
CREATE OR REPLACE FUNCTION keeper_refuse_delete()
RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'keeper: rows of % are never deleted: top-ups refer to them (block a card instead)', TG_TABLE_NAME
        USING ERRCODE = 'restrict_violation';
END $$;
COMMENT ON FUNCTION keeper_refuse_delete() IS
    'Trigger function: refuses DELETE and TRUNCATE on cards and purses, which top-ups refer to without foreign keys.';
CREATE OR REPLACE TRIGGER cards_never_deleted BEFORE DELETE ON cards FOR EACH ROW EXECUTE FUNCTION keeper_refuse_delete();
CREATE OR REPLACE TRIGGER cards_never_truncated BEFORE TRUNCATE ON cards FOR EACH STATEMENT EXECUTE FUNCTION keeper_refuse_delete();
CREATE OR REPLACE TRIGGER purses_never_deleted BEFORE DELETE ON purses FOR EACH ROW EXECUTE FUNCTION keeper_refuse_delete();
CREATE OR REPLACE TRIGGER purses_never_truncated BEFORE TRUNCATE ON purses FOR EACH STATEMENT EXECUTE FUNCTION keeper_refuse_delete();
