-- A throttle for SubscribeAppWithTagAndLocale (docs/api-decisions.md, "Sessions and
-- applications"): each wrong authHash is recorded with the client it came from, and with
-- app_auth_max_failures of them for one application from one client, or
-- app_auth_client_max_failures from one client for any application, within
-- app_auth_failure_window_seconds, that client is answered 11 whatever the hash says. Never per
-- application alone: an appId ships in the app, so anyone could then take an application's
-- subscriptions from all its users. The throttle lives in the database, so no shape of the call
-- (SOAP without an action, a proxy on loopback) and no number of worker hosts gets around it.
CREATE TABLE app_auth_failures (
    id        bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    app_id    text        NOT NULL,
    client    text        NOT NULL DEFAULT '',
    failed_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX app_auth_failures_app_client_failed_at_idx ON app_auth_failures (app_id, client, failed_at);
CREATE INDEX app_auth_failures_client_failed_at_idx ON app_auth_failures (client, failed_at);
COMMENT ON TABLE app_auth_failures IS 'Failed SubscribeAppWithTagAndLocale calls (wrong authHash, unknown or disabled application), for the throttle per (application, client) and per client (app_auth_max_failures and app_auth_client_max_failures within app_auth_failure_window_seconds). Rows older than the window are pruned as new failures of the same application and client arrive, and by keeperctl maintain; a success does not clear them.';
COMMENT ON COLUMN app_auth_failures.id IS 'Surrogate key.';
COMMENT ON COLUMN app_auth_failures.app_id IS 'The appId as tried, lower-case. Not a foreign key: unknown applications are throttled too, so the answers do not reveal which applications exist.';
COMMENT ON COLUMN app_auth_failures.client IS 'The client the call came from: its IPv4 address, or its IPv6 address''s /64 (2001:db8:1:2::/64); empty when nginx named none.';
COMMENT ON COLUMN app_auth_failures.failed_at IS 'When the attempt failed.';
