-- Mail a person answered outside the assistant (docs/answered-elsewhere.md): their reply, found
-- in a mailbox's Sent folder or as the copy a team address sent to the inbox, and the waiting
-- emails it answered. The email ends `answered_elsewhere`, its draft `withdrawn`.
ALTER TABLE emails MODIFY COLUMN status ENUM('fetched', 'parsed', 'indexed', 'partially_indexed', 'drafted',
  'awaiting_approval', 'approved', 'sent', 'rejected', 'manual_review', 'failed', 'ignored', 'answered_elsewhere')
  NOT NULL DEFAULT 'fetched';
ALTER TABLE drafts MODIFY COLUMN status ENUM('awaiting_approval', 'approved', 'rejected', 'sent', 'stale', 'withdrawn')
  NOT NULL DEFAULT 'awaiting_approval';

-- One row per reply a person sent beside the assistant, by mailbox and Message-ID (its natural key).
CREATE TABLE IF NOT EXISTS outside_replies (
  mailbox_id VARCHAR(64) NOT NULL,
  -- sha256 of the Message-ID: the natural key within a mailbox.
  message_key CHAR(64) NOT NULL,
  message_id VARCHAR(998) NOT NULL,
  -- `sent_folder` (filed in the mailbox's Sent folder) or `team_copy` (a team address's copy reached the inbox).
  found_via VARCHAR(16) NOT NULL,
  folder VARCHAR(191) NULL,
  uid_validity BIGINT UNSIGNED NULL,
  uid BIGINT UNSIGNED NULL,
  from_address VARCHAR(320) NOT NULL DEFAULT '',
  from_name VARCHAR(255) NOT NULL DEFAULT '',
  to_addresses TEXT NOT NULL,
  subject TEXT NOT NULL,
  in_reply_to VARCHAR(998) NULL,
  references_header TEXT NULL,
  text_body MEDIUMTEXT NOT NULL,
  sent_at DATETIME(3) NOT NULL,
  seen_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  PRIMARY KEY (mailbox_id, message_key),
  KEY ix_outside_replies_in_reply_to (in_reply_to(191)),
  KEY ix_outside_replies_sent (mailbox_id, sent_at)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_unicode_ci;

-- Which waiting email an outside reply answered, and how it was told (In-Reply-To, References, or
-- the same customer with a `Re:` of the subject after the mail).
CREATE TABLE IF NOT EXISTS outside_answers (
  email_id VARCHAR(191) NOT NULL,
  mailbox_id VARCHAR(64) NOT NULL,
  message_key CHAR(64) NOT NULL,
  matched_by VARCHAR(16) NOT NULL,
  created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  PRIMARY KEY (email_id, message_key),
  KEY ix_outside_answers_reply (mailbox_id, message_key)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_unicode_ci;
