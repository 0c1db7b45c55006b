-- keeper_valid_session: the login of a valid session (by its id's hash, keeper_session_hash), and
-- no row for an unknown or expired one. A write that needs a valid session reads it in its own
-- statement, as `INSERT … SELECT … FROM keeper_valid_session(…)`: plain SQL returning a table, so
-- PostgreSQL inlines it there, and the common call (a valid session) runs one statement for the
-- session and the write together. Only a write that found no valid session asks keeper_session
-- why (2 or 3): an executor's start-up per statement is a large part of a short call's database
-- work (bench/history.md, "The session read in the write").
CREATE OR REPLACE FUNCTION keeper_valid_session(p_session_hash bytea, p_ttl_seconds integer)
RETURNS TABLE (login_id bigint)
LANGUAGE sql STABLE AS $$
    SELECT s.login_id FROM sessions s
     WHERE s.session_hash = p_session_hash AND keeper_session_unexpired(s.authenticated_at, p_ttl_seconds)
$$;
COMMENT ON FUNCTION keeper_valid_session(bytea, integer) IS
    'The login of a valid session (by its id''s hash), no row for an unknown or expired one. Read it in FROM, where it is inlined.';
