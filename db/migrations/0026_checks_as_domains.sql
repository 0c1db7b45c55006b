-- supersedes sha256:e6e790085e1cdcbf08f822a39871e73f368d04e6705a007ea3c9c99b226e5dbc
-- The format and sign rules of the columns the most frequent writes set become domains
-- (docs/schema.md, "What to know"). A table's CHECK constraint is read back from its stored text
-- and planned again by every statement that writes the table, and checked for every row it
-- writes, whether or not the statement sets that column: a top-up's three cost an eighth of its
-- work in the database (bench/history.md, "The table checks as domains"). A
-- domain's constraint is planned once per server process and checked where a value is written to
-- the column. The rules and their SQLSTATE (23514, check_violation) stay.
-- Without rewriting a table, rebuilding an index or reading a row, all in one transaction that
-- holds each table's lock: the table's CHECK, which the rows there satisfy, is dropped first (a
-- column whose type changes has every constraint that names it checked again, by a read of the
-- whole table); the column then takes a domain that has no constraint yet, over its own type,
-- which changes no stored value; the domain then gets its constraint NOT VALID, which holds for
-- every value written from then on without reading the rows already there. A partitioned table's
-- column and CHECK change in every partition.
ALTER TABLE purses DROP CONSTRAINT purses_purse_check, DROP CONSTRAINT purses_balance_check;
ALTER TABLE topups DROP CONSTRAINT topups_amount_check;
ALTER TABLE sessions DROP CONSTRAINT sessions_session_hash_check;
ALTER TABLE contact_permits DROP CONSTRAINT contact_permits_wmid_check;

CREATE DOMAIN keeper_purse_number AS text;
CREATE DOMAIN keeper_balance AS numeric(20,2);
CREATE DOMAIN keeper_amount AS numeric(14,2);
CREATE DOMAIN keeper_sha256 AS bytea;
CREATE DOMAIN keeper_wmid AS text;

ALTER TABLE purses ALTER COLUMN purse TYPE keeper_purse_number, ALTER COLUMN balance TYPE keeper_balance;
ALTER TABLE topups ALTER COLUMN amount TYPE keeper_amount;
ALTER TABLE sessions ALTER COLUMN session_hash TYPE keeper_sha256;
ALTER TABLE contact_permits ALTER COLUMN wmid TYPE keeper_wmid;

ALTER DOMAIN keeper_purse_number ADD CONSTRAINT keeper_purse_number_check
    CHECK (VALUE ~ '^[ZEURBGXCKHY][0-9]{12}$') NOT VALID;
ALTER DOMAIN keeper_balance ADD CONSTRAINT keeper_balance_check CHECK (VALUE >= 0) NOT VALID;
ALTER DOMAIN keeper_amount ADD CONSTRAINT keeper_amount_check CHECK (VALUE > 0) NOT VALID;
ALTER DOMAIN keeper_sha256 ADD CONSTRAINT keeper_sha256_check CHECK (octet_length(VALUE) = 32) NOT VALID;
ALTER DOMAIN keeper_wmid ADD CONSTRAINT keeper_wmid_check CHECK (VALUE ~ '^[0-9]{12}$') NOT VALID;

COMMENT ON DOMAIN keeper_purse_number IS 'A purse number: its currency letter and 12 digits (purses.purse).';
COMMENT ON DOMAIN keeper_balance IS 'A purse''s balance, never below zero (purses.balance).';
COMMENT ON DOMAIN keeper_amount IS 'A top-up''s amount, above zero (topups.amount).';
COMMENT ON DOMAIN keeper_sha256 IS 'A SHA-256 digest, 32 bytes (sessions.session_hash).';
COMMENT ON DOMAIN keeper_wmid IS 'A WMID: 12 digits (contact_permits.wmid).';
