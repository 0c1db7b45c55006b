-- keeper_mark_sms_delivered: MarkPushSmsAsDelivered.
CREATE OR REPLACE FUNCTION keeper_mark_sms_delivered(p_call keeper_call, p_session_hash bytea, p_ttl_seconds integer,
                                          p_sms_id integer)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
    s record;
    v_result integer;
BEGIN
    IF keeper_claim_needed(p_call) THEN PERFORM keeper_claim(p_call); END IF;
    SELECT * INTO s FROM keeper_session(p_session_hash, p_ttl_seconds);
    v_result := s.code;
    IF v_result = keeper_result('ok') THEN
        -- Already delivered: 0, and the first delivery time is kept.
        UPDATE push_sms SET delivered_at = COALESCE(delivered_at, now()) WHERE id = p_sms_id AND login_id = s.login_id;
        IF NOT FOUND THEN
            v_result := keeper_result('not_found');
        END IF;
    END IF;
    RETURN keeper_audit(p_call, s.login_id, NULL, NULL, v_result);
END $$;
COMMENT ON FUNCTION keeper_mark_sms_delivered(keeper_call, bytea, integer, integer) IS 'MarkPushSmsAsDelivered.';
