-- Logins, sessions, applications, failed authentications and the audit trail (SPEC.md §4, §5).

CREATE TABLE logins (
    id            bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    login         text        NOT NULL UNIQUE CHECK (char_length(login) BETWEEN 1 AND 64),
    shared_secret text        NOT NULL CHECK (char_length(shared_secret) BETWEEN 1 AND 256),
    created_at    timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE logins IS 'Users of the mobile API. Created by keeperctl add-login (or other parts of the payment system).';
COMMENT ON COLUMN logins.id IS 'Surrogate key; other tables refer to a login by it.';
COMMENT ON COLUMN logins.login IS 'The login name, stored lower-case by keeper (logins compare case-insensitively).';
COMMENT ON COLUMN logins.shared_secret IS 'Secret shared with the client. Kept in clear because Authenticate recomputes MD5(login:secret:sessionId); restrict access to this column.';
COMMENT ON COLUMN logins.created_at IS 'When the login was created.';

CREATE TABLE sessions (
    session_id       text        PRIMARY KEY CHECK (session_id ~ '^[a-z0-9_{}-]{1,64}$'),
    login_id         bigint      NOT NULL REFERENCES logins (id) ON DELETE CASCADE,
    authenticated_at timestamptz NOT NULL
);
CREATE INDEX sessions_login_id_idx ON sessions (login_id);
COMMENT ON TABLE sessions IS 'Authenticated sessions. A row exists only after a successful Authenticate; valid until authenticated_at + session_ttl_seconds (config).';
COMMENT ON COLUMN sessions.session_id IS 'Client-chosen session id (typically a GUID), stored lower-case.';
COMMENT ON COLUMN sessions.login_id IS 'The login the session is bound to; never rebound to another login.';
COMMENT ON COLUMN sessions.authenticated_at IS 'Time of the last successful Authenticate (renewal moves it forward).';

CREATE TABLE applications (
    app_id        text        PRIMARY KEY CHECK (char_length(app_id) BETWEEN 1 AND 64),
    shared_secret text        NOT NULL CHECK (char_length(shared_secret) BETWEEN 1 AND 256),
    push_provider text        NOT NULL CHECK (push_provider IN ('Undefined', 'Android', 'iOS', 'WindowsPhone', 'Bada',
                              'MacOS', 'BlackBerry', 'WindowsRT', 'Windows8', 'Linux', 'AndroidKM', 'Advisor',
                              'NokiaAsha', 'WindowsPhone8', 'WebServer', 'WindowsUWP')),
    enabled       boolean     NOT NULL DEFAULT true,
    created_at    timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE applications IS 'Registered client applications (CheckSessionEx, SubscribeAppWithTagAndLocale). Created by keeperctl add-app.';
COMMENT ON COLUMN applications.app_id IS 'Application id, stored lower-case (compared case-insensitively).';
COMMENT ON COLUMN applications.shared_secret IS 'Secret shared with the application, kept in clear to recompute MD5(appId:secret:userId); restrict access.';
COMMENT ON COLUMN applications.push_provider IS 'Push provider of the application, by its Provider enumeration name.';
COMMENT ON COLUMN applications.enabled IS 'A disabled application is treated as unknown.';
COMMENT ON COLUMN applications.created_at IS 'When the application was registered.';

CREATE TABLE auth_failures (
    id        bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    login     text        NOT NULL,
    failed_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX auth_failures_login_failed_at_idx ON auth_failures (login, failed_at);
COMMENT ON TABLE auth_failures IS 'Failed Authenticate calls, for the per-login throttle (auth_max_failures within auth_failure_window_seconds). Rows older than the window are pruned as new failures of the same login arrive; a successful Authenticate clears the login''s rows.';
COMMENT ON COLUMN auth_failures.id IS 'Surrogate key.';
COMMENT ON COLUMN auth_failures.login IS 'The login name as tried, lower-case. Not a foreign key: unknown logins are throttled too, so the answers do not reveal which logins exist.';
COMMENT ON COLUMN auth_failures.failed_at IS 'When the attempt failed.';

CREATE TABLE audit_log (
    id         bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at         timestamptz NOT NULL DEFAULT now(),
    login      text,
    app_id     text,
    operation  text        NOT NULL,
    result     integer     NOT NULL,
    request_id text        NOT NULL
);
CREATE INDEX audit_log_at_idx ON audit_log (at);
CREATE INDEX audit_log_login_at_idx ON audit_log (login, at) WHERE login IS NOT NULL;
COMMENT ON TABLE audit_log IS 'One row per call that used the database, written in the call''s own transaction. Never holds secrets, hashes or codes.';
COMMENT ON COLUMN audit_log.id IS 'Surrogate key, in commit order per connection.';
COMMENT ON COLUMN audit_log.at IS 'Start of the call''s transaction.';
COMMENT ON COLUMN audit_log.login IS 'The login the call acted as (resolved from the session, or the login Authenticate tried); NULL when none was resolved.';
COMMENT ON COLUMN audit_log.app_id IS 'The application the call named, when it named one.';
COMMENT ON COLUMN audit_log.operation IS 'Operation name, e.g. Authenticate.';
COMMENT ON COLUMN audit_log.result IS 'The int result code returned (SPEC.md §2).';
COMMENT ON COLUMN audit_log.request_id IS 'Request id shared with the worker log line and nginx''s access log.';
