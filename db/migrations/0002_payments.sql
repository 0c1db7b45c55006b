-- Permits, protected transfers, purses, cards and top-ups, telepay profiles and scheduler tasks,
-- push subscriptions and push SMS (SPEC.md §5). Rows of transfers, purses, cards, profiles, tasks
-- and SMS are created by other parts of the payment system (here: keeperctl or SQL).

CREATE TABLE account_permits (
    login_id        bigint      PRIMARY KEY REFERENCES logins (id) ON DELETE CASCADE,
    accept_payments boolean     NOT NULL,
    accept_invoices boolean     NOT NULL,
    accept_messages boolean     NOT NULL,
    updated_at      timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE account_permits IS 'Whether anyone may send the login payments, invoices and messages (SetAccountPermits). No row: nothing set yet.';
COMMENT ON COLUMN account_permits.login_id IS 'The login the permits belong to.';
COMMENT ON COLUMN account_permits.accept_payments IS 'Accept payments from anyone.';
COMMENT ON COLUMN account_permits.accept_invoices IS 'Accept invoices from anyone.';
COMMENT ON COLUMN account_permits.accept_messages IS 'Accept messages from anyone.';
COMMENT ON COLUMN account_permits.updated_at IS 'When the flags were last set.';

CREATE TABLE contact_permits (
    login_id              bigint      NOT NULL REFERENCES logins (id) ON DELETE CASCADE,
    wmid                  text        NOT NULL CHECK (wmid ~ '^[0-9]{12}$'),
    accept_payments       boolean     NOT NULL,
    accept_invoices       boolean     NOT NULL,
    accept_messages       boolean     NOT NULL,
    dont_use_confirmation boolean     NOT NULL,
    updated_at            timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (login_id, wmid)
);
COMMENT ON TABLE contact_permits IS 'What one contact (a WMID) may send the login (SetContactPermitsEx).';
COMMENT ON COLUMN contact_permits.login_id IS 'The login the permits belong to.';
COMMENT ON COLUMN contact_permits.wmid IS 'The contact''s WMID: exactly 12 decimal digits.';
COMMENT ON COLUMN contact_permits.accept_payments IS 'Accept payments from this contact.';
COMMENT ON COLUMN contact_permits.accept_invoices IS 'Accept invoices from this contact.';
COMMENT ON COLUMN contact_permits.accept_messages IS 'Accept messages from this contact.';
COMMENT ON COLUMN contact_permits.dont_use_confirmation IS 'Payments from this contact need no confirmation.';
COMMENT ON COLUMN contact_permits.updated_at IS 'When the flags were last set.';

CREATE TABLE protected_transfers (
    id              bigint        PRIMARY KEY CHECK (id > 0),
    login_id        bigint        NOT NULL REFERENCES logins (id) ON DELETE CASCADE,
    amount          numeric(14,2) NOT NULL CHECK (amount > 0),
    code_hash       text          NOT NULL CHECK (code_hash ~ '^sha256\$[0-9a-f]{32}\$[0-9a-f]{64}$'),
    status          text          NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'completed', 'locked')),
    failed_attempts integer       NOT NULL DEFAULT 0 CHECK (failed_attempts >= 0),
    expires_at      timestamptz   NOT NULL,
    created_at      timestamptz   NOT NULL DEFAULT now(),
    completed_at    timestamptz,
    CHECK ((status = 'completed') = (completed_at IS NOT NULL))
);
CREATE INDEX protected_transfers_login_id_idx ON protected_transfers (login_id);
COMMENT ON TABLE protected_transfers IS 'Code-protected transfers addressed to a login, completed by FinishCodeProtectedOperation.';
COMMENT ON COLUMN protected_transfers.id IS 'The transfer id (tranId), given by the payment system.';
COMMENT ON COLUMN protected_transfers.login_id IS 'The recipient login; only it may complete the transfer.';
COMMENT ON COLUMN protected_transfers.amount IS 'Amount of the transfer (exact decimal).';
COMMENT ON COLUMN protected_transfers.code_hash IS 'The protection code, salted and hashed: sha256$<salt hex>$<SHA-256(salt || code) hex>. Never the code itself.';
COMMENT ON COLUMN protected_transfers.status IS 'pending, completed (the right code was given) or locked (code_max_attempts wrong codes; for good).';
COMMENT ON COLUMN protected_transfers.failed_attempts IS 'Wrong codes given so far.';
COMMENT ON COLUMN protected_transfers.expires_at IS 'After this a pending transfer can no longer be completed (result 12).';
COMMENT ON COLUMN protected_transfers.created_at IS 'When the transfer was created.';
COMMENT ON COLUMN protected_transfers.completed_at IS 'When the right code was given; NULL unless completed.';

CREATE TABLE purses (
    purse      text          PRIMARY KEY CHECK (purse ~ '^[ZEURBGXCKHY][0-9]{12}$'),
    login_id   bigint        NOT NULL REFERENCES logins (id) ON DELETE CASCADE,
    balance    numeric(20,2) NOT NULL DEFAULT 0 CHECK (balance >= 0),
    created_at timestamptz   NOT NULL DEFAULT now()
);
CREATE INDEX purses_login_id_idx ON purses (login_id);
COMMENT ON TABLE purses IS 'Purses of logins, topped up from bank cards (TopupPurseFromAtmCard).';
COMMENT ON COLUMN purses.purse IS 'Purse number: a currency letter (upper case) and 12 digits, e.g. Z123456789012.';
COMMENT ON COLUMN purses.login_id IS 'The owner.';
COMMENT ON COLUMN purses.balance IS 'Balance, exact decimal; a top-up adds to it in the same transaction that records it.';
COMMENT ON COLUMN purses.created_at IS 'When the purse was created.';

CREATE TABLE cards (
    id          bigint        PRIMARY KEY CHECK (id > 0),
    login_id    bigint        NOT NULL REFERENCES logins (id) ON DELETE CASCADE,
    daily_limit numeric(14,2) CHECK (daily_limit > 0),
    blocked     boolean       NOT NULL DEFAULT false,
    created_at  timestamptz   NOT NULL DEFAULT now()
);
CREATE INDEX cards_login_id_idx ON cards (login_id);
COMMENT ON TABLE cards IS 'Bank cards of logins, sources of top-ups.';
COMMENT ON COLUMN cards.id IS 'The card id (cardId), given by the payment system.';
COMMENT ON COLUMN cards.login_id IS 'The owner.';
COMMENT ON COLUMN cards.daily_limit IS 'Most the card may top up over 24 hours; NULL = the configured card_daily_limit.';
COMMENT ON COLUMN cards.blocked IS 'A blocked card cannot be used (answers as if it did not exist).';
COMMENT ON COLUMN cards.created_at IS 'When the card was added.';

CREATE TABLE topups (
    id         bigint        GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    card_id    bigint        NOT NULL REFERENCES cards (id),
    purse      text          NOT NULL REFERENCES purses (purse),
    amount     numeric(14,2) NOT NULL CHECK (amount > 0),
    created_at timestamptz   NOT NULL DEFAULT now(),
    request_id text          NOT NULL
);
CREATE INDEX topups_card_id_created_at_idx ON topups (card_id, created_at);
CREATE INDEX topups_purse_idx ON topups (purse);
COMMENT ON TABLE topups IS 'Every successful TopupPurseFromAtmCard: one row per answer 0.';
COMMENT ON COLUMN topups.id IS 'Surrogate key.';
COMMENT ON COLUMN topups.card_id IS 'The card charged.';
COMMENT ON COLUMN topups.purse IS 'The purse credited.';
COMMENT ON COLUMN topups.amount IS 'Amount, exact decimal.';
COMMENT ON COLUMN topups.created_at IS 'When; the card''s 24-hour limit sums rows newer than a day.';
COMMENT ON COLUMN topups.request_id IS 'Request id of the call (also in the audit log).';

CREATE TABLE telepay_profiles (
    id         integer     PRIMARY KEY CHECK (id > 0),
    login_id   bigint      NOT NULL REFERENCES logins (id) ON DELETE CASCADE,
    name       text        NOT NULL CHECK (char_length(name) BETWEEN 1 AND 64),
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX telepay_profiles_login_id_idx ON telepay_profiles (login_id);
COMMENT ON TABLE telepay_profiles IS 'Saved payment (telepay) profiles of logins.';
COMMENT ON COLUMN telepay_profiles.id IS 'Profile id, given by the payment system.';
COMMENT ON COLUMN telepay_profiles.login_id IS 'The owner.';
COMMENT ON COLUMN telepay_profiles.name IS 'Display name, trimmed, 1-64 characters (RenameTelepayProfile).';
COMMENT ON COLUMN telepay_profiles.created_at IS 'When the profile was created.';
COMMENT ON COLUMN telepay_profiles.updated_at IS 'When the name last changed.';

CREATE TABLE telepay_tasks (
    profile_id      integer     NOT NULL REFERENCES telepay_profiles (id) ON DELETE CASCADE,
    id              integer     NOT NULL CHECK (id > 0),
    code_hash       text        NOT NULL CHECK (code_hash ~ '^sha256\$[0-9a-f]{32}\$[0-9a-f]{64}$'),
    status          text        NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'active', 'locked')),
    failed_attempts integer     NOT NULL DEFAULT 0 CHECK (failed_attempts >= 0),
    expires_at      timestamptz NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    confirmed_at    timestamptz,
    PRIMARY KEY (profile_id, id),
    CHECK ((status = 'active') = (confirmed_at IS NOT NULL))
);
COMMENT ON TABLE telepay_tasks IS 'Scheduled payments of a telepay profile, activated by TelepaySchedulerConfirmCreate.';
COMMENT ON COLUMN telepay_tasks.profile_id IS 'The profile the task belongs to.';
COMMENT ON COLUMN telepay_tasks.id IS 'Task id (taskId) within the profile, given by the payment system.';
COMMENT ON COLUMN telepay_tasks.code_hash IS 'The confirmation code, salted and hashed as protected_transfers.code_hash.';
COMMENT ON COLUMN telepay_tasks.status IS 'pending, active (confirmed) or locked (code_max_attempts wrong codes; for good).';
COMMENT ON COLUMN telepay_tasks.failed_attempts IS 'Wrong codes given so far.';
COMMENT ON COLUMN telepay_tasks.expires_at IS 'After this a pending task can no longer be confirmed (result 12).';
COMMENT ON COLUMN telepay_tasks.created_at IS 'When the task was created.';
COMMENT ON COLUMN telepay_tasks.confirmed_at IS 'When the right code was given; NULL unless active.';

CREATE TABLE push_subscriptions (
    provider             text        NOT NULL CHECK (provider <> 'Undefined'),
    push_service_user_id text        NOT NULL CHECK (char_length(push_service_user_id) BETWEEN 1 AND 512),
    login_id             bigint      NOT NULL REFERENCES logins (id) ON DELETE CASCADE,
    tag                  integer     NOT NULL,
    locale               integer     NOT NULL CHECK (locale IN (1033, 1049)),
    updated_at           timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (provider, push_service_user_id)
);
CREATE INDEX push_subscriptions_login_id_idx ON push_subscriptions (login_id);
COMMENT ON TABLE push_subscriptions IS 'Devices registered for push by a logged-in user (SubscribeWithTagAndLocale). A device belongs to one login at a time.';
COMMENT ON COLUMN push_subscriptions.provider IS 'Push provider, by its Provider enumeration name.';
COMMENT ON COLUMN push_subscriptions.push_service_user_id IS 'The device''s id at the push provider.';
COMMENT ON COLUMN push_subscriptions.login_id IS 'The login the device currently belongs to; moves when another login subscribes it.';
COMMENT ON COLUMN push_subscriptions.tag IS 'Client-defined tag.';
COMMENT ON COLUMN push_subscriptions.locale IS 'Language of pushes: 1033 English, 1049 Russian.';
COMMENT ON COLUMN push_subscriptions.updated_at IS 'When the device was last subscribed.';

CREATE TABLE app_push_subscriptions (
    provider             text        NOT NULL CHECK (provider <> 'Undefined'),
    push_service_user_id text        NOT NULL CHECK (char_length(push_service_user_id) BETWEEN 1 AND 512),
    app_id               text        NOT NULL REFERENCES applications (app_id) ON DELETE CASCADE,
    user_id              text        NOT NULL CHECK (char_length(user_id) BETWEEN 1 AND 64),
    tag                  integer     NOT NULL,
    locale               integer     NOT NULL CHECK (locale IN (1033, 1049)),
    updated_at           timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (provider, push_service_user_id)
);
CREATE INDEX app_push_subscriptions_app_user_idx ON app_push_subscriptions (app_id, user_id);
COMMENT ON TABLE app_push_subscriptions IS 'Devices registered for push by an application for one of its users (SubscribeAppWithTagAndLocale).';
COMMENT ON COLUMN app_push_subscriptions.provider IS 'Push provider, taken from the application.';
COMMENT ON COLUMN app_push_subscriptions.push_service_user_id IS 'The device''s id at the push provider.';
COMMENT ON COLUMN app_push_subscriptions.app_id IS 'The application that registered the device.';
COMMENT ON COLUMN app_push_subscriptions.user_id IS 'The application''s user id, lower-case; moves with the device.';
COMMENT ON COLUMN app_push_subscriptions.tag IS 'Client-defined tag.';
COMMENT ON COLUMN app_push_subscriptions.locale IS 'Language of pushes: 1033 English, 1049 Russian.';
COMMENT ON COLUMN app_push_subscriptions.updated_at IS 'When the device was last subscribed.';

CREATE TABLE push_sms (
    id           integer     PRIMARY KEY CHECK (id > 0),
    login_id     bigint      NOT NULL REFERENCES logins (id) ON DELETE CASCADE,
    created_at   timestamptz NOT NULL DEFAULT now(),
    delivered_at timestamptz
);
CREATE INDEX push_sms_login_id_idx ON push_sms (login_id);
COMMENT ON TABLE push_sms IS 'SMS sent to a login as push, whose delivery the app confirms (MarkPushSmsAsDelivered).';
COMMENT ON COLUMN push_sms.id IS 'SMS id, given by the payment system.';
COMMENT ON COLUMN push_sms.login_id IS 'The recipient.';
COMMENT ON COLUMN push_sms.created_at IS 'When the SMS was sent.';
COMMENT ON COLUMN push_sms.delivered_at IS 'First reported delivery; later reports keep it.';
