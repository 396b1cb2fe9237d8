-- Whether an email's retrieval entries are complete, apart from its business status (which moves
-- on after a degraded index step): the re-index sync looks for `partial`.
ALTER TABLE emails ADD COLUMN IF NOT EXISTS index_state ENUM('none', 'partial', 'complete') NOT NULL DEFAULT 'none';
CREATE INDEX IF NOT EXISTS ix_emails_index_state ON emails (index_state);
