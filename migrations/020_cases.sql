-- Cases: a correspondent's open work. A case groups the mails of one correspondent (within one
-- account and mailbox) while it is open: their thread and their other mails, whatever the subject.
-- An email belongs to at most one case (emails.case_id). The case's deadlines, owner and claim live
-- here so the review inbox pages and filters on indexed columns, and the case workflow
-- (`case-<id>`) reads its clock from the row it owns.
CREATE TABLE IF NOT EXISTS cases (
  id VARCHAR(64) NOT NULL PRIMARY KEY,
  account VARCHAR(191) NOT NULL,
  mailbox_id VARCHAR(64) NOT NULL DEFAULT 'default',
  -- The normalised address the case is about (the sender of its first mail).
  correspondent VARCHAR(320) NOT NULL,
  correspondent_name VARCHAR(255) NOT NULL DEFAULT '',
  subject VARCHAR(998) NOT NULL DEFAULT '',
  status ENUM('open', 'waiting_for_customer', 'closed') NOT NULL DEFAULT 'open',
  priority ENUM('critical', 'high', 'normal', 'low') NOT NULL DEFAULT 'normal',
  -- Routing: the team and/or person it is assigned to, and the rule that did it.
  team VARCHAR(191) NULL,
  owner VARCHAR(191) NULL,
  routed_by VARCHAR(191) NULL,
  -- A reviewer who opened the case holds it for a few minutes.
  claimed_by VARCHAR(191) NULL,
  claimed_until DATETIME(3) NULL,
  opened_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  -- The customer's oldest mail we have not answered yet: the response clock runs from here.
  waiting_since DATETIME(3) NULL,
  -- The current response target (business time), its reminder, and what happened to it.
  due_at DATETIME(3) NULL,
  remind_at DATETIME(3) NULL,
  reminded_at DATETIME(3) NULL,
  breached_at DATETIME(3) NULL,
  escalated_at DATETIME(3) NULL,
  first_response_at DATETIME(3) NULL,
  last_customer_at DATETIME(3) NULL,
  last_reply_at DATETIME(3) NULL,
  closed_at DATETIME(3) NULL,
  -- The handover summary for the reviewer (never sent to the customer), and how it was made.
  summary TEXT NULL,
  summary_kind VARCHAR(32) NULL,
  summary_emails INT UNSIGNED NOT NULL DEFAULT 0,
  email_count INT UNSIGNED NOT NULL DEFAULT 0,
  created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  updated_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3) ON UPDATE CURRENT_TIMESTAMP(3),
  KEY ix_cases_correspondent (account, mailbox_id, correspondent(191), status),
  KEY ix_cases_status_due (status, due_at),
  KEY ix_cases_owner (owner, status),
  KEY ix_cases_team (team, status),
  KEY ix_cases_mailbox_status (mailbox_id, status, priority)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_unicode_ci;

ALTER TABLE emails ADD COLUMN IF NOT EXISTS case_id VARCHAR(64) NULL;
CREATE INDEX IF NOT EXISTS ix_emails_case ON emails (case_id);

-- A case's history: what happened to it and who did it (joined, drafted, reminded, escalated,
-- assigned, claimed, answered, closed). Idempotent by event_key.
CREATE TABLE IF NOT EXISTS case_events (
  id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  case_id VARCHAR(64) NOT NULL,
  email_id VARCHAR(191) NULL,
  event_type VARCHAR(64) NOT NULL,
  actor VARCHAR(191) NULL,
  message TEXT NOT NULL,
  details JSON NULL,
  event_key VARCHAR(255) NULL,
  created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  UNIQUE KEY ux_case_events_key (event_key),
  KEY ix_case_events_case (case_id, id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_unicode_ci;

-- One reply that answers several mails of a case: sent by the lead email's workflow, the covered
-- emails end as sent by it. One row per covered email, unique: it is answered once.
CREATE TABLE IF NOT EXISTS case_replies (
  covered_email_id VARCHAR(191) NOT NULL PRIMARY KEY,
  covered_draft_id VARCHAR(191) NOT NULL,
  case_id VARCHAR(64) NOT NULL,
  lead_email_id VARCHAR(191) NOT NULL,
  lead_draft_id VARCHAR(191) NOT NULL,
  approved_by VARCHAR(191) NOT NULL,
  -- Set once the lead's reply was sent and the covered email was told.
  message_id VARCHAR(998) NULL,
  settled_at DATETIME(3) NULL,
  created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  KEY ix_case_replies_lead (lead_draft_id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_unicode_ci;
