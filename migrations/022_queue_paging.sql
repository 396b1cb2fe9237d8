-- The review queue pages on the server (keyset, no OFFSET) in the order priority, age, id, and
-- searches only through indexes: every page, tab and search is a range scan of one of these, never
-- a scan of all emails. `priority` is an ENUM, so the index orders it critical → low.
CREATE INDEX IF NOT EXISTS ix_emails_queue ON emails (status, priority, created_at, id);
CREATE INDEX IF NOT EXISTS ix_emails_mailbox_queue ON emails (mailbox_id, status, priority, created_at, id);
-- Search by sender: a prefix of the address or the display name, among the emails of one status.
CREATE INDEX IF NOT EXISTS ix_emails_queue_from_address ON emails (status, from_address(191));
CREATE INDEX IF NOT EXISTS ix_emails_queue_from_name ON emails (status, from_name(191));
-- Search by subject words (the existing full-text index covers subject and body together).
CREATE FULLTEXT INDEX IF NOT EXISTS ft_emails_subject ON emails (subject);
-- "My queue": cases a reviewer holds right now.
CREATE INDEX IF NOT EXISTS ix_cases_claimed ON cases (claimed_by, claimed_until);
