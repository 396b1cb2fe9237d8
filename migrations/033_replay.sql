-- Replaying a team's own history (docs/replay.md): each run of `email-rag replay run`, the
-- archive's mail it keeps (the customer mails, the team's replies, and what the same
-- correspondents wrote before, as context), the pairs of customer mail and sent reply, and per
-- pair what the product would have drafted and how close that came. Nothing of a replay is ever
-- an email of the live pipeline: no emails, drafts or queue_jobs rows.
CREATE TABLE IF NOT EXISTS replay_runs (
  id VARCHAR(64) NOT NULL PRIMARY KEY,
  mailbox_id VARCHAR(64) NOT NULL,
  -- The archive's file name only (no path), for the operator's orientation.
  archive_name VARCHAR(255) NOT NULL,
  team_addresses TEXT NOT NULL,
  status VARCHAR(16) NOT NULL,
  messages INT UNSIGNED NOT NULL DEFAULT 0,
  customer_mails INT UNSIGNED NOT NULL DEFAULT 0,
  pairs INT UNSIGNED NOT NULL DEFAULT 0,
  created_by VARCHAR(191) NOT NULL,
  created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  finished_at DATETIME(3) NULL,
  KEY ix_replay_runs_created (created_at)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_unicode_ci;

CREATE TABLE IF NOT EXISTS replay_messages (
  run_id VARCHAR(64) NOT NULL,
  -- sha256 of the Message-ID, shortened: the natural key of a message within a run.
  message_key CHAR(32) NOT NULL,
  thread_key CHAR(32) NOT NULL,
  direction VARCHAR(16) NOT NULL,
  -- The customer: the sender of a customer mail, the first recipient of a team mail.
  correspondent VARCHAR(320) NOT NULL,
  from_address VARCHAR(320) NOT NULL,
  from_name VARCHAR(255) NOT NULL DEFAULT '',
  sent_at DATETIME(3) NOT NULL,
  subject TEXT NOT NULL,
  body MEDIUMTEXT NOT NULL,
  PRIMARY KEY (run_id, message_key),
  KEY ix_replay_messages_correspondent (correspondent(191)),
  KEY ix_replay_messages_history (run_id, correspondent(191), sent_at)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_unicode_ci;

CREATE TABLE IF NOT EXISTS replay_pairs (
  run_id VARCHAR(64) NOT NULL,
  -- The customer mail's message key: one pair per customer mail.
  pair_id CHAR(32) NOT NULL,
  reply_key CHAR(32) NOT NULL,
  correspondent VARCHAR(320) NOT NULL,
  customer_at DATETIME(3) NOT NULL,
  PRIMARY KEY (run_id, pair_id),
  KEY ix_replay_pairs_correspondent (correspondent(191))
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_unicode_ci;

CREATE TABLE IF NOT EXISTS replay_results (
  run_id VARCHAR(64) NOT NULL,
  pair_id CHAR(32) NOT NULL,
  correspondent VARCHAR(320) NOT NULL,
  state VARCHAR(16) NOT NULL,
  outcome VARCHAR(16) NULL,
  similarity DOUBLE NULL,
  edit_share DOUBLE NULL,
  facts_total SMALLINT UNSIGNED NOT NULL DEFAULT 0,
  facts_found SMALLINT UNSIGNED NOT NULL DEFAULT 0,
  category VARCHAR(100) NOT NULL DEFAULT '',
  language VARCHAR(8) NOT NULL DEFAULT '',
  knowledge_gap TINYINT(1) NOT NULL DEFAULT 0,
  draft_body MEDIUMTEXT NULL,
  drafter VARCHAR(64) NOT NULL DEFAULT '',
  model VARCHAR(191) NOT NULL DEFAULT '',
  context_ids TEXT NULL,
  error TEXT NULL,
  created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  updated_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3) ON UPDATE CURRENT_TIMESTAMP(3),
  PRIMARY KEY (run_id, pair_id),
  KEY ix_replay_results_correspondent (correspondent(191))
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_unicode_ci;
