-- keeper_confirm_transfer: FinishCodeProtectedOperation's transaction, given the worker's verdict on the code.
CREATE OR REPLACE FUNCTION keeper_confirm_transfer(p_call keeper_call, p_login_id bigint,
                                        p_tran_id bigint, p_matches boolean, p_max_attempts integer)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
    t record;
    d record;
BEGIN
    IF keeper_claim_needed(p_call) THEN PERFORM keeper_claim(p_call); END IF;
    SELECT status, failed_attempts, expires_at <= now() AS expired INTO t
      FROM protected_transfers WHERE id = p_tran_id AND login_id = p_login_id FOR UPDATE;
    IF NOT FOUND THEN
        RETURN keeper_audit(p_call, p_login_id, NULL, NULL, keeper_result('not_found'));
    END IF;
    d := keeper_decide_code(t.status, t.expired, t.failed_attempts, p_matches, p_max_attempts);
    IF d.action = 'complete' THEN
        UPDATE protected_transfers SET status = 'completed', completed_at = now() WHERE id = p_tran_id;
    ELSIF d.action IN ('count', 'lock') THEN
        UPDATE protected_transfers SET failed_attempts = failed_attempts + 1,
               status = CASE WHEN d.action = 'lock' THEN 'locked' ELSE status END
         WHERE id = p_tran_id;
    END IF;
    RETURN keeper_audit(p_call, p_login_id, NULL, NULL, d.result);
END $$;
COMMENT ON FUNCTION keeper_confirm_transfer(keeper_call, bigint, bigint, boolean, integer) IS
    'FinishCodeProtectedOperation''s transaction: p_matches is the worker''s verdict on the protection code.';
