-- keeper_session returns its one row as a table (db/functions/keeper_session.sql), so that the
-- functions that resolve a session read it in their FROM clause, where PostgreSQL inlines it. A
-- function's result type is not replaced in place: the function is dropped here, and
-- db/functions/ defines it again in this transaction (the last migration of a run defines every
-- changed function). An upgrade from the previous release dropped it already (0022); nothing
-- calls it between the two, since every function that calls it is defined again here too.
DROP FUNCTION IF EXISTS keeper_session(text, integer);
