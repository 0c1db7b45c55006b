-- keeper_session_unexpired: the one rule for a session's age: authenticated less than its TTL ago,
-- by the transaction's clock (now(), the same for every statement of a call). keeper_session
-- answers 3 by it, keeper_valid_session finds a session by it. Plain SQL of one expression:
-- PostgreSQL inlines it into the query that names it, so it costs a call nothing.
CREATE OR REPLACE FUNCTION keeper_session_unexpired(p_authenticated_at timestamptz, p_ttl_seconds integer)
RETURNS boolean LANGUAGE sql STABLE AS $$
    SELECT p_authenticated_at + p_ttl_seconds * interval '1 second' > now()
$$;
COMMENT ON FUNCTION keeper_session_unexpired(timestamptz, integer) IS
    'Whether a session authenticated at p_authenticated_at is within its TTL (p_ttl_seconds) now. Inlined where it is named.';
