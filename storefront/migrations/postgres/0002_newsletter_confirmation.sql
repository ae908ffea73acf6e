-- Newsletter subscriptions asked for another person's e-mail wait for that person's confirmation, sent through
-- the store's e-mail outbox.

-- A confirmation token: 32 random bytes sent in the e-mail's links, stored only as the hex SHA-256. It sets the
-- subscription's active flag once (GET /newsletter/subscriptionactivation/{token}/{active}) and expires. Tokens
-- go with their subscription.
CREATE TABLE newsletter_token (
	token_hash TEXT COLLATE "C" NOT NULL PRIMARY KEY,
	subscription_id TEXT COLLATE "C" NOT NULL REFERENCES newsletter_subscription (id) ON DELETE CASCADE,
	created_on_utc TIMESTAMPTZ NOT NULL,
	expires_on_utc TIMESTAMPTZ NOT NULL
);
CREATE INDEX newsletter_token_subscription_id_idx ON newsletter_token (subscription_id, created_on_utc);
CREATE INDEX newsletter_token_expires_on_utc_idx ON newsletter_token (expires_on_utc);

-- The e-mail outbox: the store queues mail here, in the transaction of what it tells about, and a mailer of the
-- operator's sends it (the store has no SMTP settings). Plain-text bodies; sent_on_utc is NULL until sent.
CREATE TABLE queued_email (
	id TEXT COLLATE "C" NOT NULL PRIMARY KEY,
	to_address TEXT COLLATE "C" NOT NULL,
	subject TEXT COLLATE "C" NOT NULL,
	body TEXT COLLATE "C" NOT NULL,
	created_on_utc TIMESTAMPTZ NOT NULL,
	sent_tries INTEGER NOT NULL DEFAULT 0,
	sent_on_utc TIMESTAMPTZ
);
CREATE INDEX queued_email_unsent_idx ON queued_email (id) WHERE sent_on_utc IS NULL;
