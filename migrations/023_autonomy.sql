-- Earned autonomy: a category of mail may be sent without a person only while its measured record
-- allows it (docs/cases.md "Earned autonomy"). Off by default, and one switch turns all of it off.
-- The switch: a single row, `off` until a person turns it on.
CREATE TABLE IF NOT EXISTS autonomy_switch (
  id TINYINT UNSIGNED NOT NULL PRIMARY KEY,
  state ENUM('on', 'off') NOT NULL DEFAULT 'off',
  changed_by VARCHAR(191) NULL,
  changed_at DATETIME(3) NULL,
  CONSTRAINT ck_autonomy_switch_single CHECK (id = 1)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_unicode_ci;
INSERT IGNORE INTO autonomy_switch (id, state) VALUES (1, 'off');
-- A reviewer stopped the automatic send of this draft: it waits for a person like any other.
CREATE TABLE IF NOT EXISTS autonomy_stops (
  draft_id VARCHAR(191) NOT NULL PRIMARY KEY,
  email_id VARCHAR(191) NOT NULL,
  stopped_by VARCHAR(191) NOT NULL,
  stopped_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  KEY ix_autonomy_stops_email (email_id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_unicode_ci;
-- One row per draft the policy let go: sent at `send_after` unless stopped, and what became of it.
-- `figures` is the record that allowed it (category, reviewed, unchanged, share, the bars).
CREATE TABLE IF NOT EXISTS autonomy_pending (
  draft_id VARCHAR(191) NOT NULL PRIMARY KEY,
  email_id VARCHAR(191) NOT NULL,
  mailbox_id VARCHAR(64) NOT NULL,
  category VARCHAR(100) NOT NULL,
  send_after DATETIME(3) NOT NULL,
  policy VARCHAR(191) NOT NULL,
  figures LONGTEXT NOT NULL CHECK (JSON_VALID(figures)),
  state ENUM('pending', 'sent', 'stopped', 'skipped') NOT NULL DEFAULT 'pending',
  reason VARCHAR(1000) NULL,
  created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  updated_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3) ON UPDATE CURRENT_TIMESTAMP(3),
  KEY ix_autonomy_pending_state (state, send_after),
  KEY ix_autonomy_pending_email (email_id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_unicode_ci;
-- A category's record: its newest decided drafts in one mailbox, read by one index range.
CREATE INDEX IF NOT EXISTS ix_draft_outcomes_record ON draft_outcomes (mailbox_id, category, decided_at);
