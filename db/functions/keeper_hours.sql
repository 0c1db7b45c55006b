-- keeper_hours: the UTC hours from one time to another, as the history's hour-led indexes key
-- them (migration 0011). A query about one login, card or purse says
--     date_trunc('hour', at AT TIME ZONE 'UTC') = ANY (keeper_hours(from, to))
-- so that each partition's index is probed once per hour of the range, never read whole.
CREATE OR REPLACE FUNCTION keeper_hours(p_from timestamptz, p_to timestamptz)
RETURNS timestamp[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT COALESCE(array_agg(h), '{}')
      FROM generate_series(date_trunc('hour', p_from AT TIME ZONE 'UTC'), p_to AT TIME ZONE 'UTC', interval '1 hour') h
$$;
COMMENT ON FUNCTION keeper_hours(timestamptz, timestamptz) IS
    'The UTC hours from p_from to p_to, for the hour-led indexes of audit_log and topups (keeper_login_calls and the like).';
