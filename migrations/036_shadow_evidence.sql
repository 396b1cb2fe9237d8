-- Shadow mode (docs/answered-elsewhere.md#shadow-mode): a mailbox's drafts wait as `shadowed` for
-- the team's own reply, asking nobody and sending nothing.
ALTER TABLE emails MODIFY COLUMN status ENUM('fetched', 'parsed', 'indexed', 'partially_indexed', 'drafted',
  'awaiting_approval', 'approved', 'sent', 'rejected', 'manual_review', 'failed', 'ignored', 'answered_elsewhere', 'shadowed')
  NOT NULL DEFAULT 'fetched';

-- Shadow evidence (docs/answered-elsewhere.md#shadow-mode): each draft a person answered instead
-- of, measured against the reply they sent, with the replay's measures. One row per email.
CREATE TABLE IF NOT EXISTS shadow_evidence (
  email_id VARCHAR(191) NOT NULL PRIMARY KEY,
  mailbox_id VARCHAR(64) NOT NULL,
  -- The mailbox's mode when measured: `shadow` (nothing could be sent) or `live` (a person was quicker).
  mailbox_mode VARCHAR(16) NOT NULL,
  draft_id VARCHAR(191) NOT NULL,
  reply_message_id VARCHAR(998) NOT NULL,
  category VARCHAR(100) NOT NULL DEFAULT '',
  language VARCHAR(8) NOT NULL DEFAULT '',
  outcome VARCHAR(16) NOT NULL,
  similarity DOUBLE NULL,
  non_answer_similarity DOUBLE NULL,
  edit_share DOUBLE NOT NULL,
  facts_total SMALLINT UNSIGNED NOT NULL DEFAULT 0,
  facts_found SMALLINT UNSIGNED NOT NULL DEFAULT 0,
  knowledge_gap TINYINT(1) NOT NULL DEFAULT 0,
  replied_at DATETIME(3) NOT NULL,
  created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  KEY ix_shadow_evidence_mailbox (mailbox_id, created_at)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_unicode_ci;
