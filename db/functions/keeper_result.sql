-- keeper_result: a result code by its name, as core/api/result_code.hpp names them (a unit test
-- compares the two), so that the functions say keeper_result('not_found') where they mean 5. An
-- immutable SQL function of a constant: PostgreSQL inlines and folds it when it plans the
-- expression, which PL/pgSQL does once per session, so a call pays nothing for the name. An
-- unknown name would be NULL: the unit test also checks every name the functions use.
CREATE OR REPLACE FUNCTION keeper_result(p_name text) RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE p_name
        WHEN 'ok' THEN 0
        WHEN 'invalid_argument' THEN 1
        WHEN 'session_not_found' THEN 2
        WHEN 'session_expired' THEN 3
        WHEN 'auth_failed' THEN 4
        WHEN 'not_found' THEN 5
        WHEN 'wrong_code' THEN 6
        WHEN 'attempts_exceeded' THEN 7
        WHEN 'already_completed' THEN 8
        WHEN 'limit_exceeded' THEN 9
        WHEN 'unknown_application' THEN 10
        WHEN 'too_many_attempts' THEN 11
        WHEN 'expired' THEN 12
    END
$$;
COMMENT ON FUNCTION keeper_result(text) IS
    'A result code (docs/api.md) by its name in core/api/result_code.hpp: keeper_result(''not_found'') is 5.';
