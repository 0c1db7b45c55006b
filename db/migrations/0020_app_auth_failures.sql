-- A throttle per application, as Authenticate has per login (docs/api-decisions.md,
-- "SubscribeAppWithTagAndLocale"): SubscribeAppWithTagAndLocale records each wrong authHash, and
-- with app_auth_max_failures of them within app_auth_failure_window_seconds answers 11 whatever
-- the hash says. The throttle lives in the database, so no shape of the call (SOAP without an
-- action, a proxy on loopback) and no number of worker hosts gets around it.
CREATE TABLE app_auth_failures (
    id        bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    app_id    text        NOT NULL,
    failed_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX app_auth_failures_app_failed_at_idx ON app_auth_failures (app_id, failed_at);
COMMENT ON TABLE app_auth_failures IS 'Failed SubscribeAppWithTagAndLocale calls (wrong authHash, unknown or disabled application), for the per-application throttle (app_auth_max_failures within app_auth_failure_window_seconds). Rows older than the window are pruned as new failures of the same application arrive, and by keeperctl maintain; a success does not clear them.';
COMMENT ON COLUMN app_auth_failures.id IS 'Surrogate key.';
COMMENT ON COLUMN app_auth_failures.app_id IS 'The appId as tried, lower-case. Not a foreign key: unknown applications are throttled too, so the answers do not reveal which applications exist.';
COMMENT ON COLUMN app_auth_failures.failed_at IS 'When the attempt failed.';
