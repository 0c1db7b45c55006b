-- keeper_session: Resolves a sessionId to its login for every call that carries one: sessions
-- alone, since the audit row names the login by id. Sessions are found by their id's hash
-- (keeper_session_hash).
CREATE OR REPLACE FUNCTION keeper_session(p_session text, p_ttl_seconds integer,
                               OUT code integer, OUT login_id bigint)
LANGUAGE plpgsql STABLE AS $$
BEGIN
    SELECT s.login_id, CASE WHEN s.authenticated_at + p_ttl_seconds * interval '1 second' > now() THEN keeper_result('ok') ELSE keeper_result('session_expired') END
      INTO login_id, code
      FROM sessions s
     WHERE s.session_hash = keeper_session_hash(p_session);
    IF NOT FOUND THEN
        code := keeper_result('session_not_found');
    END IF;
END $$;
COMMENT ON FUNCTION keeper_session(text, integer) IS
    'Resolves a sessionId: code 0 valid, 2 unknown or never authenticated, 3 expired; with the session''s login id (also when expired, for the audit row).';
