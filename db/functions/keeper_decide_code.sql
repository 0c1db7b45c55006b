-- keeper_decide_code: The code rule that FinishCodeProtectedOperation and TelepaySchedulerConfirmCreate share.
CREATE OR REPLACE FUNCTION keeper_decide_code(p_status text, p_expired boolean, p_failed_attempts integer, p_matches boolean,
                                   p_max_attempts integer, OUT result integer, OUT action text)
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
    IF p_status IN ('completed', 'active') THEN
        result := CASE WHEN p_matches THEN 0 ELSE 8 END;
        action := 'none';
    ELSIF p_status = 'locked' THEN
        result := 7;
        action := 'none';
    ELSIF p_expired THEN
        result := 12;
        action := 'none';
    ELSIF p_matches THEN
        result := 0;
        action := 'complete';
    ELSIF p_failed_attempts + 1 >= p_max_attempts THEN
        result := 7;
        action := 'lock';
    ELSE
        result := 6;
        action := 'count';
    END IF;
END $$;
COMMENT ON FUNCTION keeper_decide_code(text, boolean, integer, boolean, integer) IS
    'The rule FinishCodeProtectedOperation and TelepaySchedulerConfirmCreate share: right code completes (0); wrong code 6, the max_attempts-th wrong one locks for good (7); locked 7; past expiry 12; done and the right code again 0, another code 8.';
