-- keeper_session: Resolves a sessionId to its login for every call that carries one.
CREATE OR REPLACE FUNCTION keeper_session(p_session text, p_ttl_seconds integer,
                               OUT code integer, OUT login_id bigint, OUT login text)
LANGUAGE plpgsql STABLE AS $$
BEGIN
    SELECT s.login_id, l.login,
           CASE WHEN s.authenticated_at + p_ttl_seconds * interval '1 second' > now() THEN 0 ELSE 3 END
      INTO login_id, login, code
      FROM sessions s JOIN logins l ON l.id = s.login_id
     WHERE s.session_id = p_session;
    IF NOT FOUND THEN
        code := 2;
    END IF;
END $$;
COMMENT ON FUNCTION keeper_session(text, integer) IS
    'Resolves a sessionId: code 0 valid, 2 unknown or never authenticated, 3 expired; with the session''s login (also when expired, for the audit row).';
