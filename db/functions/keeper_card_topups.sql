-- keeper_card_topups: one card's top-ups between two times, for a DBA or support engineer, read
-- through topups_hour_card_idx an hour at a time (migration 0011). A plain
-- "WHERE card_id = ..." cannot use that index and reads every row of the months it spans.
CREATE OR REPLACE FUNCTION keeper_card_topups(p_card_id bigint, p_from timestamptz, p_to timestamptz DEFAULT now())
RETURNS SETOF topups LANGUAGE sql STABLE AS $$
    SELECT * FROM topups
     WHERE date_trunc('hour', created_at AT TIME ZONE 'UTC') = ANY (keeper_hours(p_from, p_to))
       AND card_id = p_card_id AND created_at >= p_from AND created_at < p_to
     ORDER BY created_at, id
$$;
COMMENT ON FUNCTION keeper_card_topups(bigint, timestamptz, timestamptz) IS
    'The top-ups charged to one card from p_from to p_to (default now), oldest first, through the hour-led index.';
