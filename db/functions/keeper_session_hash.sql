-- keeper_session_hash: what a session is stored and found by (sessions.session_hash): SHA-256 of
-- its id in lower case. A session id is a bearer credential, so the table holds none: a copy of
-- the database resumes no session. Unkeyed, since a client's session id (typically a random
-- GUID) cannot be guessed back from its hash, and so that no key rotation ends every session.
-- The workers compute the same digest themselves and pass it to the operations' functions
-- (db/store/session_key.cpp); this function is the DBA's way to find a session, and the previous
-- release's arguments' (keeper_previous_release.sql), which pass the id. db.authenticate checks
-- that both give the same bytes. Plain SQL, inlined where it is called: so STABLE, as convert_to is. PostgreSQL
-- inlines no function whose body is more volatile than it says, and an IMMUTABLE one around
-- convert_to runs as its own SQL function, parsed and planned again at every call: a tenth of
-- SetAccountPermits' database time (bench/history.md, "The session's hash inlined").
CREATE OR REPLACE FUNCTION keeper_session_hash(p_session text)
RETURNS bytea LANGUAGE sql STABLE STRICT PARALLEL SAFE AS $$
    SELECT sha256(convert_to(p_session, 'UTF8'))
$$;
COMMENT ON FUNCTION keeper_session_hash(text) IS
    'SHA-256 of a session id (lower case, as stored by Authenticate): the key of sessions. A DBA finds a session by SELECT * FROM sessions WHERE session_hash = keeper_session_hash(lower(''<session id>'')).';
