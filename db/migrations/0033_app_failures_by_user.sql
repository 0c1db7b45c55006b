-- SubscribeAppWithTagAndLocale's guard against guessing is keyed by what is guessed, the
-- application and its userId, as Authenticate's is by the login, and no longer by the client's
-- address (docs/api-decisions.md, "Sessions and applications"): thousands of phones share one
-- address behind a carrier's NAT, and one of them must not hold the others. Calls that name no
-- application (unknown or disabled) guess no secret and are not recorded. The counts kept by
-- address end here; a count only ever covers the last window, so nothing is lost.
DROP FUNCTION IF EXISTS keeper_subscribe_app_device(keeper_call, text, text, text, text, integer, integer, boolean, text,
                                                    integer, integer, integer);
DELETE FROM schema_definitions WHERE name IN ('keeper_subscribe_app_device', 'keeper_previous_release');
TRUNCATE app_auth_failures;
DROP INDEX app_auth_failures_app_client_failed_at_idx;
DROP INDEX app_auth_failures_client_failed_at_idx;
ALTER TABLE app_auth_failures DROP COLUMN client, ADD COLUMN user_id text NOT NULL;
CREATE INDEX app_auth_failures_app_user_failed_at_idx ON app_auth_failures (app_id, user_id, failed_at);
COMMENT ON TABLE app_auth_failures IS 'Failed SubscribeAppWithTagAndLocale calls (a wrong authHash for an enabled application), for the guard per (application, userId): app_auth_max_failures within app_auth_failure_window_seconds answer 11. Rows older than the window are pruned as new failures of the same pair arrive, and by keeperctl maintain; a success clears the pair''s.';
COMMENT ON COLUMN app_auth_failures.app_id IS 'The appId, lower-case: an enabled application when the row was written (not a foreign key: an application''s removal keeps its rows until the window passes).';
COMMENT ON COLUMN app_auth_failures.user_id IS 'The userId, lower-case, as the authHash reads it.';
