-- keeper_rename_profile: RenameTelepayProfile.
CREATE OR REPLACE FUNCTION keeper_rename_profile(p_call keeper_call, p_session_hash bytea, p_ttl_seconds integer,
                                      p_profile_id integer, p_name text)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
    s record;
    v_result integer;
BEGIN
    IF keeper_claim_needed(p_call) THEN PERFORM keeper_claim(p_call); END IF;
    SELECT * INTO s FROM keeper_session(p_session_hash, p_ttl_seconds);
    v_result := s.code;
    IF v_result = keeper_result('ok') THEN
        UPDATE telepay_profiles SET name = p_name, updated_at = now() WHERE id = p_profile_id AND login_id = s.login_id;
        IF NOT FOUND THEN
            v_result := keeper_result('not_found');
        END IF;
    END IF;
    RETURN keeper_audit(p_call, s.login_id, NULL, NULL, v_result);
END $$;
COMMENT ON FUNCTION keeper_rename_profile(keeper_call, bytea, integer, integer, text) IS 'RenameTelepayProfile.';
