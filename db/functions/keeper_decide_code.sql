-- keeper_decide_code: The code rule that FinishCodeProtectedOperation and TelepaySchedulerConfirmCreate share.
CREATE OR REPLACE FUNCTION keeper_decide_code(p_status text, p_expired boolean, p_failed_attempts integer, p_matches boolean,
                                   p_max_attempts integer, OUT result integer, OUT action text)
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
    IF p_status IN ('completed', 'active') THEN
        result := CASE WHEN p_matches THEN keeper_result('ok') ELSE keeper_result('already_completed') END;
        action := 'none';
    ELSIF p_status = 'locked' THEN
        result := keeper_result('attempts_exceeded');
        action := 'none';
    ELSIF p_expired THEN
        result := keeper_result('expired');
        action := 'none';
    ELSIF p_matches THEN
        result := keeper_result('ok');
        action := 'complete';
    ELSIF p_failed_attempts + 1 >= p_max_attempts THEN
        result := keeper_result('attempts_exceeded');
        action := 'lock';
    ELSE
        result := keeper_result('wrong_code');
        action := 'count';
    END IF;
END $$;
COMMENT ON FUNCTION keeper_decide_code(text, boolean, integer, boolean, integer) IS
    'The rule FinishCodeProtectedOperation and TelepaySchedulerConfirmCreate share: right code completes (0); wrong code 6, the max_attempts-th wrong one locks for good (7); locked 7; past expiry 12; done and the right code again 0, another code 8.';
