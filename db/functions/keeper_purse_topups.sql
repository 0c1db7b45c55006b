-- keeper_purse_topups: the top-ups into one purse between two times, for a DBA or support
-- engineer, read through topups_hour_purse_idx an hour at a time (migration 0011). A plain
-- "WHERE purse = ..." cannot use that index and reads every row of the months it spans.
CREATE OR REPLACE FUNCTION keeper_purse_topups(p_purse text, p_from timestamptz, p_to timestamptz DEFAULT now())
RETURNS SETOF topups LANGUAGE sql STABLE AS $$
    SELECT * FROM topups
     WHERE date_trunc('hour', created_at AT TIME ZONE 'UTC') = ANY (keeper_hours(p_from, p_to))
       AND purse = p_purse AND created_at >= p_from AND created_at < p_to
     ORDER BY created_at, id
$$;
COMMENT ON FUNCTION keeper_purse_topups(text, timestamptz, timestamptz) IS
    'The top-ups credited to one purse from p_from to p_to (default now), oldest first, through the hour-led index.';
