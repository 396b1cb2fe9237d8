-- Several mailboxes (README "Several mailboxes"): every email names the registry entry it came
-- in through, so any worker can find its IMAP account, Sent folder and sending identity.
ALTER TABLE emails ADD COLUMN IF NOT EXISTS mailbox_id VARCHAR(64) NOT NULL DEFAULT 'default' AFTER account;
CREATE INDEX IF NOT EXISTS ix_emails_mailbox_status ON emails (mailbox_id, status);

-- How the last poll of each watched folder went: status shows one broken mailbox beside the others.
CREATE TABLE IF NOT EXISTS mailbox_polls (
  mailbox_id VARCHAR(64) NOT NULL,
  folder VARCHAR(191) NOT NULL,
  last_attempt_at DATETIME(3) NULL,
  last_success_at DATETIME(3) NULL,
  last_error TEXT NULL,
  last_error_class VARCHAR(32) NULL,
  failures_in_a_row INT NOT NULL DEFAULT 0,
  last_started INT NOT NULL DEFAULT 0,
  PRIMARY KEY (mailbox_id, folder)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_unicode_ci;
