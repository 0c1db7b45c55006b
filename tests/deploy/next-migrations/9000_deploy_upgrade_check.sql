-- The deploy tier's upgrade (tests/deploy): the one migration its newer package adds, so that the
-- documented upgrade is proven to apply a migration. Never part of a release build.
CREATE TABLE deploy_upgrade_check (applied_at timestamptz NOT NULL DEFAULT now());
COMMENT ON TABLE deploy_upgrade_check IS 'Made by the deploy tier''s upgrade package only.';
INSERT INTO deploy_upgrade_check DEFAULT VALUES;
