-- supersedes sha256:fe7c5cda7dc96505b0e083b8a3b6e7372087f6b91ec3a9e6ebfaead733ed58b3
--
-- This migration first brought the keeper_* call functions, one per operation. They now live one
-- file each in db/functions/, which keeperctl migrate applies after the numbered migrations
-- whenever a file changes (docs/schema.md, "Functions"). The line above names this file's earlier
-- text: a database that applied it is at the same schema once db/functions/ is applied, so the
-- migrator records this text's checksum in its place.

-- audit_log only grows, in time order: a BRIN index answers "calls between these times" at a
-- fraction of a B-tree's cost per insert (one more index write on every call).
DROP INDEX audit_log_at_idx;
CREATE INDEX audit_log_at_brin ON audit_log USING brin (at);
