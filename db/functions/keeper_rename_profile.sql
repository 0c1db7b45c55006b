-- keeper_rename_profile: RenameTelepayProfile.
CREATE OR REPLACE FUNCTION keeper_rename_profile(p_request_id text, p_operation text, p_session text, p_ttl_seconds integer,
                                      p_profile_id integer, p_name text,
                                      p_key text, p_fingerprint text, p_key_used boolean)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
    s record := keeper_session(p_session, p_ttl_seconds);
    v_result integer := s.code;
BEGIN
    IF v_result = 0 THEN
        UPDATE telepay_profiles SET name = p_name, updated_at = now() WHERE id = p_profile_id AND login_id = s.login_id;
        IF NOT FOUND THEN
            v_result := 5;
        END IF;
    END IF;
    RETURN keeper_audit(p_request_id, p_operation, s.login, NULL, v_result, p_key, p_fingerprint, p_key_used);
END $$;
COMMENT ON FUNCTION keeper_rename_profile(text, text, text, integer, integer, text, text, text, boolean) IS 'RenameTelepayProfile.';
