-- keeper_login_calls: one login's calls between two times, for a DBA or support engineer, read
-- through the hour-led audit_log_hour_caller_idx an hour at a time: by login_id for rows that name
-- the login by id, by login for rows that hold its name (written before login_id existed), which
-- name no login by id. A plain "WHERE login_id = ..." cannot use the index and reads every row of
-- the months it spans. Plain SQL, so the planner inlines it and prunes the partitions outside the range.
CREATE OR REPLACE FUNCTION keeper_login_calls(p_login text, p_from timestamptz, p_to timestamptz DEFAULT now())
RETURNS SETOF audit_calls LANGUAGE sql STABLE AS $$
    SELECT * FROM (
        SELECT a.id, a.at, p_login, a.app_id, a.operation, a.result, a.request_id, COALESCE(a.trace_id, a.request_id)
          FROM audit_log a
         WHERE date_trunc('hour', a.at AT TIME ZONE 'UTC') = ANY (keeper_hours(p_from, p_to))
           AND a.login_id = (SELECT id FROM logins WHERE login = p_login) AND a.at >= p_from AND a.at < p_to
        UNION ALL
        SELECT a.id, a.at, p_login, a.app_id, a.operation, a.result, a.request_id, COALESCE(a.trace_id, a.request_id)
          FROM audit_log a
         WHERE date_trunc('hour', a.at AT TIME ZONE 'UTC') = ANY (keeper_hours(p_from, p_to))
           AND a.login_id IS NULL AND a.login = p_login AND a.at >= p_from AND a.at < p_to
    ) calls
     ORDER BY at, id
$$;
COMMENT ON FUNCTION keeper_login_calls(text, timestamptz, timestamptz) IS
    'The audit rows of one login from p_from to p_to (default now), oldest first, by name, through the hour-led indexes.';
