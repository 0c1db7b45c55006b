-- keeper_code_hash: First step of FinishCodeProtectedOperation and TelepaySchedulerConfirmCreate: the worker
-- reads the stored code hash here, checks the code itself in constant time, then sends its verdict
-- to keeper_confirm_transfer or keeper_confirm_task.
CREATE OR REPLACE FUNCTION keeper_code_hash(p_call keeper_call, p_session_hash bytea, p_ttl_seconds integer,
                                 p_kind text, p_id bigint, p_task_id integer,
                                 OUT result integer, OUT login_id bigint, OUT code_hash text)
LANGUAGE plpgsql AS $$
DECLARE
    s record;
BEGIN
    IF keeper_claim_needed(p_call) THEN PERFORM keeper_claim(p_call); END IF;
    SELECT * INTO s FROM keeper_session(p_session_hash, p_ttl_seconds);
    login_id := s.login_id;
    result := s.code;
    IF result = keeper_result('ok') AND p_kind = 'transfer' THEN
        SELECT t.code_hash INTO code_hash FROM protected_transfers t WHERE t.id = p_id AND t.login_id = s.login_id;
    ELSIF result = keeper_result('ok') THEN
        SELECT t.code_hash INTO code_hash FROM telepay_tasks t JOIN telepay_profiles p ON p.id = t.profile_id
         WHERE t.profile_id = p_id AND t.id = p_task_id AND p.login_id = s.login_id;
    END IF;
    IF result = keeper_result('ok') AND code_hash IS NULL THEN
        result := keeper_result('not_found');  -- not this login's, or none: one answer
    END IF;
    IF result <> keeper_result('ok') THEN
        PERFORM keeper_audit(p_call, login_id, NULL, NULL, result);  -- the call ends here
    END IF;
END $$;
COMMENT ON FUNCTION keeper_code_hash(keeper_call, bytea, integer, text, bigint, integer) IS
    'First step of FinishCodeProtectedOperation (p_kind transfer, p_id tranId) and TelepaySchedulerConfirmCreate (p_kind task, p_id profileId, p_task_id taskId): result 0 with the login id and the stored code hash, or the final result (2, 3, 5), audited.';
