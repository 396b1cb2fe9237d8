-- Business status of each email; id = Temporal workflow id (the correlation id).
CREATE TABLE IF NOT EXISTS emails (
  id VARCHAR(191) NOT NULL PRIMARY KEY,
  source ENUM('imap', 'file') NOT NULL,
  mailbox VARCHAR(191) NULL,
  uid_validity BIGINT UNSIGNED NULL,
  uid BIGINT UNSIGNED NULL,
  history_only TINYINT(1) NOT NULL DEFAULT 0,
  status ENUM('fetched', 'parsed', 'indexed', 'partially_indexed', 'drafted', 'awaiting_approval',
    'approved', 'sent', 'rejected', 'manual_review', 'failed') NOT NULL DEFAULT 'fetched',
  priority ENUM('critical', 'high', 'normal', 'low') NOT NULL DEFAULT 'normal',
  message_id VARCHAR(998) NULL,
  in_reply_to VARCHAR(998) NULL,
  references_header TEXT NULL,
  thread_id VARCHAR(191) NULL,
  from_address VARCHAR(320) NULL,
  from_name VARCHAR(255) NULL,
  reply_to_address VARCHAR(320) NULL,
  reply_to_name VARCHAR(255) NULL,
  to_addresses TEXT NULL,
  cc_addresses TEXT NULL,
  subject TEXT NULL,
  text_body MEDIUMTEXT NULL,
  has_html TINYINT(1) NOT NULL DEFAULT 0,
  attachments TEXT NULL,
  sent_date DATETIME(3) NULL,
  raw_size INT UNSIGNED NOT NULL DEFAULT 0,
  created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  updated_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3) ON UPDATE CURRENT_TIMESTAMP(3),
  status_changed_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  UNIQUE KEY uq_emails_imap (mailbox, uid_validity, uid),
  KEY ix_emails_status (status, status_changed_at),
  KEY ix_emails_thread (thread_id),
  KEY ix_emails_message_id (message_id(191)),
  FULLTEXT KEY ft_emails (subject, text_body)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_unicode_ci;

-- Raw RFC 822 bytes live here, never in workflow history.
CREATE TABLE IF NOT EXISTS raw_messages (
  email_id VARCHAR(191) NOT NULL PRIMARY KEY,
  raw LONGBLOB NOT NULL,
  size INT UNSIGNED NOT NULL,
  sha256 CHAR(64) NOT NULL,
  created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3)
) ENGINE = InnoDB;

-- One row per (workflow, step): the technical job status of seed 000.
CREATE TABLE IF NOT EXISTS queue_jobs (
  id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  workflow_id VARCHAR(191) NOT NULL,
  email_id VARCHAR(191) NULL,
  step VARCHAR(64) NOT NULL,
  -- Temporal's activity id: a step that runs again later in the same workflow gets its own row.
  activity_id VARCHAR(64) NOT NULL DEFAULT '',
  status ENUM('pending', 'processing', 'done', 'failed', 'dead') NOT NULL DEFAULT 'pending',
  priority ENUM('critical', 'high', 'normal', 'low') NOT NULL DEFAULT 'normal',
  attempt INT UNSIGNED NOT NULL DEFAULT 0,
  retry_count INT UNSIGNED NOT NULL DEFAULT 0,
  max_attempts INT UNSIGNED NOT NULL DEFAULT 1,
  error_class VARCHAR(32) NULL,
  last_error TEXT NULL,
  next_attempt_at DATETIME(3) NULL,
  started_at DATETIME(3) NULL,
  finished_at DATETIME(3) NULL,
  runtime_ms INT UNSIGNED NULL,
  created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  updated_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3) ON UPDATE CURRENT_TIMESTAMP(3),
  UNIQUE KEY uq_queue_jobs_step (workflow_id, step, activity_id),
  KEY ix_queue_jobs_status (status, priority, created_at),
  KEY ix_queue_jobs_email (email_id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_unicode_ci;

-- Every error, retry, fallback and human decision.
CREATE TABLE IF NOT EXISTS audit_log (
  id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  email_id VARCHAR(191) NULL,
  correlation_id VARCHAR(191) NOT NULL,
  event_type VARCHAR(64) NOT NULL,
  error_class VARCHAR(32) NULL,
  message TEXT NOT NULL,
  actor VARCHAR(191) NULL,
  details TEXT NULL,
  event_key VARCHAR(255) NULL,
  created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  UNIQUE KEY uq_audit_event_key (event_key),
  KEY ix_audit_email (email_id, created_at),
  KEY ix_audit_correlation (correlation_id),
  KEY ix_audit_type (event_type, created_at)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_unicode_ci;

CREATE TABLE IF NOT EXISTS drafts (
  id VARCHAR(191) NOT NULL PRIMARY KEY,
  email_id VARCHAR(191) NOT NULL,
  version INT UNSIGNED NOT NULL,
  status ENUM('awaiting_approval', 'approved', 'rejected', 'sent', 'stale') NOT NULL DEFAULT 'awaiting_approval',
  subject TEXT NOT NULL,
  body MEDIUMTEXT NOT NULL,
  language VARCHAR(16) NOT NULL,
  confidence DOUBLE NOT NULL DEFAULT 0,
  drafter VARCHAR(64) NOT NULL,
  model VARCHAR(191) NOT NULL,
  prompt_version VARCHAR(64) NOT NULL,
  context_ids TEXT NOT NULL,
  to_address VARCHAR(320) NOT NULL,
  to_name VARCHAR(255) NOT NULL DEFAULT '',
  approved_body MEDIUMTEXT NULL,
  decided_by VARCHAR(191) NULL,
  decided_at DATETIME(3) NULL,
  decision_reason TEXT NULL,
  created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  updated_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3) ON UPDATE CURRENT_TIMESTAMP(3),
  UNIQUE KEY uq_drafts_version (email_id, version),
  KEY ix_drafts_status (status)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_unicode_ci;

-- Exactly one row per draft, updated on every try: the send idempotency key.
CREATE TABLE IF NOT EXISTS send_attempts (
  id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  draft_id VARCHAR(191) NOT NULL,
  email_id VARCHAR(191) NOT NULL,
  message_id VARCHAR(998) NOT NULL,
  status ENUM('pending', 'sending', 'sent', 'failed') NOT NULL DEFAULT 'pending',
  attempts INT UNSIGNED NOT NULL DEFAULT 0,
  last_error TEXT NULL,
  smtp_response TEXT NULL,
  envelope TEXT NULL,
  appended_to_sent TINYINT(1) NOT NULL DEFAULT 0,
  sent_at DATETIME(3) NULL,
  created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  updated_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3) ON UPDATE CURRENT_TIMESTAMP(3),
  UNIQUE KEY uq_send_attempts_draft (draft_id),
  KEY ix_send_attempts_email (email_id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_unicode_ci;

-- The IMAP watermark: last UID handed to a workflow, per account and mailbox.
CREATE TABLE IF NOT EXISTS mailbox_watermarks (
  account VARCHAR(191) NOT NULL,
  mailbox VARCHAR(191) NOT NULL,
  uid_validity BIGINT UNSIGNED NOT NULL,
  last_uid BIGINT UNSIGNED NOT NULL,
  -- Mail at or below this UID was there when the mailbox was connected: history, never answered.
  history_until_uid BIGINT UNSIGNED NOT NULL DEFAULT 0,
  connected_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  updated_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3) ON UPDATE CURRENT_TIMESTAMP(3),
  PRIMARY KEY (account, mailbox)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_unicode_ci;

-- Embedded retrieval index (MariaDB full-text) used when no vector store is configured.
CREATE TABLE IF NOT EXISTS passages (
  email_id VARCHAR(191) NOT NULL,
  idx INT UNSIGNED NOT NULL,
  mailbox VARCHAR(191) NOT NULL DEFAULT '',
  thread_id VARCHAR(191) NOT NULL,
  direction ENUM('in', 'out') NOT NULL,
  from_address VARCHAR(320) NOT NULL DEFAULT '',
  text TEXT NOT NULL,
  created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  PRIMARY KEY (email_id, idx),
  KEY ix_passages_thread (thread_id),
  FULLTEXT KEY ft_passages (text)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_unicode_ci;
