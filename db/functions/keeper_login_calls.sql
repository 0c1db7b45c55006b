-- keeper_login_calls: one login's calls between two times, for a DBA or support engineer, read
-- through audit_log_hour_login_idx an hour at a time (migration 0011). A plain
-- "WHERE login = ..." cannot use that index and reads every row of the months it spans.
-- Plain SQL, so the planner inlines it and prunes the partitions outside the range.
CREATE OR REPLACE FUNCTION keeper_login_calls(p_login text, p_from timestamptz, p_to timestamptz DEFAULT now())
RETURNS SETOF audit_log LANGUAGE sql STABLE AS $$
    SELECT * FROM audit_log
     WHERE date_trunc('hour', at AT TIME ZONE 'UTC') = ANY (keeper_hours(p_from, p_to))
       AND login = p_login AND at >= p_from AND at < p_to
     ORDER BY at, id
$$;
COMMENT ON FUNCTION keeper_login_calls(text, timestamptz, timestamptz) IS
    'The audit rows of one login from p_from to p_to (default now), oldest first, through the hour-led index.';
