-- Shared secrets sealed at rest (db/sealed_secrets.hpp). Login and application secrets are stored
-- as "sealed:v1:<key id>:<base64>", AES-256-GCM under a key kept outside the database (the file
-- secret_key_file, or systemd's credential secret.keys), bound to their row. This migration has no
-- key, so it only makes room: `keeperctl rotate-key` (run by keeper-migrate.service after every
-- migrate) seals the secrets still in clear, in batches, while keeper serves. Until then a clear
-- secret keeps working.

ALTER TABLE logins DROP CONSTRAINT logins_shared_secret_check;
ALTER TABLE logins ADD CONSTRAINT logins_shared_secret_check CHECK (char_length(shared_secret) BETWEEN 1 AND 1024);
COMMENT ON COLUMN logins.shared_secret IS 'Secret shared with the client, sealed: "sealed:v1:<key id>:<base64 nonce, ciphertext, tag>" (AES-256-GCM, associated data "logins:<login>"). keeper opens it to recompute MD5(login:secret:sessionId); the key is not in the database. A value without the prefix is a secret still in clear (before keeperctl rotate-key).';

ALTER TABLE applications DROP CONSTRAINT applications_shared_secret_check;
ALTER TABLE applications ADD CONSTRAINT applications_shared_secret_check CHECK (char_length(shared_secret) BETWEEN 1 AND 1024);
COMMENT ON COLUMN applications.shared_secret IS 'Secret shared with the application, sealed like logins.shared_secret (associated data "applications:<app id>").';

CREATE TABLE secret_keys (
    key_id      text        PRIMARY KEY CHECK (key_id ~ '^[A-Za-z0-9_-]{1,32}$'),
    check_value text        NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE secret_keys IS 'The keys secrets are sealed with, by id, each with a known value sealed under it: keeper-fcgi refuses to start when its key file lacks one of them or holds a different key under the same id. keeperctl rotate-key removes a key once nothing is sealed with it.';
COMMENT ON COLUMN secret_keys.key_id IS 'The key id, as in the key file and in sealed values.';
COMMENT ON COLUMN secret_keys.check_value IS 'The word "keeper" sealed with this key (associated data "secret_keys:<key id>").';
COMMENT ON COLUMN secret_keys.created_at IS 'When the key was first used.';
