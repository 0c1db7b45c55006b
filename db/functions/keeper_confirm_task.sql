-- keeper_confirm_task: TelepaySchedulerConfirmCreate's transaction, given the worker's verdict on the code.
CREATE OR REPLACE FUNCTION keeper_confirm_task(p_call keeper_call, p_login_id bigint,
                                    p_profile_id integer, p_task_id integer, p_matches boolean, p_max_attempts integer)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
    t record;
    d record;
BEGIN
    IF keeper_claim_needed(p_call) THEN PERFORM keeper_claim(p_call); END IF;
    SELECT k.status, k.failed_attempts, k.expires_at <= now() AS expired INTO t
      FROM telepay_tasks k JOIN telepay_profiles p ON p.id = k.profile_id
     WHERE k.profile_id = p_profile_id AND k.id = p_task_id AND p.login_id = p_login_id
       FOR UPDATE OF k;
    IF NOT FOUND THEN
        RETURN keeper_audit(p_call, p_login_id, NULL, NULL, keeper_result('not_found'));
    END IF;
    d := keeper_decide_code(t.status, t.expired, t.failed_attempts, p_matches, p_max_attempts);
    IF d.action = 'complete' THEN
        UPDATE telepay_tasks SET status = 'active', confirmed_at = now() WHERE profile_id = p_profile_id AND id = p_task_id;
    ELSIF d.action IN ('count', 'lock') THEN
        UPDATE telepay_tasks SET failed_attempts = failed_attempts + 1,
               status = CASE WHEN d.action = 'lock' THEN 'locked' ELSE status END
         WHERE profile_id = p_profile_id AND id = p_task_id;
    END IF;
    RETURN keeper_audit(p_call, p_login_id, NULL, NULL, d.result);
END $$;
COMMENT ON FUNCTION keeper_confirm_task(keeper_call, bigint, integer, integer, boolean, integer) IS
    'TelepaySchedulerConfirmCreate''s transaction: p_matches is the worker''s verdict on the confirmation code.';
