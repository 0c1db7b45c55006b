-- keeper_session: Resolves a session to its login for every call that carries one: sessions
-- alone, since the audit row names the login by id. The worker passes the session id's hash, as
-- sessions are stored (keeper_session_hash): it computes the SHA-256 itself, so a session id, a
-- bearer credential, is in no statement the database sees, and the database spends nothing on
-- the digest (bench/history.md, "The session's hash in the worker"). Always one row:
-- code 2 and no login for an unknown session.
-- Plain SQL returning a table, read as `SELECT * INTO s FROM keeper_session(…)`: PostgreSQL
-- inlines such a function into the query that reads it, so the look-up is one index scan of
-- the calling function's own, with no function call of its own. (Only a set-returning SQL
-- function in FROM is inlined; called as an expression, a PL/pgSQL or SQL function runs on its
-- own, at about a twentieth of a SetAccountPermits' database instructions: bench/history.md,
-- "The worker's own instructions, and the session in FROM".)
CREATE OR REPLACE FUNCTION keeper_session(p_session_hash bytea, p_ttl_seconds integer)
RETURNS TABLE (code integer, login_id bigint)
LANGUAGE sql STABLE AS $$
    SELECT CASE WHEN s.session_hash IS NULL THEN keeper_result('session_not_found')
                WHEN keeper_session_unexpired(s.authenticated_at, p_ttl_seconds) THEN keeper_result('ok')
                ELSE keeper_result('session_expired') END,
           s.login_id
      FROM (SELECT) AS one LEFT JOIN sessions s ON s.session_hash = p_session_hash
$$;
COMMENT ON FUNCTION keeper_session(bytea, integer) IS
    'Resolves a session by its id''s hash (keeper_session_hash), as one row: code 0 valid, 2 unknown or never authenticated, 3 expired; with the session''s login id (also when expired, for the audit row). Read it in FROM, where it is inlined.';
