-- Intake triage: mail that deserves no reply ends `ignored`, with its class and the reason.
ALTER TABLE emails MODIFY COLUMN status ENUM('fetched', 'parsed', 'indexed', 'partially_indexed', 'drafted',
  'awaiting_approval', 'approved', 'sent', 'rejected', 'manual_review', 'failed', 'ignored') NOT NULL DEFAULT 'fetched';
ALTER TABLE emails
  ADD COLUMN IF NOT EXISTS triage_class VARCHAR(32) NULL,
  ADD COLUMN IF NOT EXISTS status_reason VARCHAR(500) NULL;
CREATE INDEX IF NOT EXISTS ix_emails_triage_class ON emails (triage_class);

-- A delivery status notification marks the send it reports on `bounced`. Written as the full list
-- so it lands the same whether the column was still the original ENUM or was already widened.
ALTER TABLE send_attempts MODIFY COLUMN status ENUM('pending', 'sending', 'sent', 'failed', 'in_doubt', 'bounced')
  NOT NULL DEFAULT 'pending';
CREATE INDEX IF NOT EXISTS ix_send_attempts_message_id ON send_attempts (message_id(191));

-- Large raw mail is stored in chunks so that no single statement comes near max_allowed_packet:
-- raw_messages.raw holds the first chunk (the whole message when it is small), the rest is here.
ALTER TABLE raw_messages ADD COLUMN IF NOT EXISTS chunks INT UNSIGNED NOT NULL DEFAULT 1;
CREATE TABLE IF NOT EXISTS raw_message_parts (
  email_id VARCHAR(191) NOT NULL,
  seq INT UNSIGNED NOT NULL,
  data LONGBLOB NOT NULL,
  PRIMARY KEY (email_id, seq)
) ENGINE = InnoDB;
