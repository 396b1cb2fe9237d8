-- Case deadlines: what a case's current due time was planned from. The deadline is planned once
-- per (waiting_since, priority): a retried or replayed plan finds it and keeps it, a new
-- unanswered mail or a person's change of priority plans it again. The reminder raises the
-- priority and records it here too, so its own raise does not move the deadline.
ALTER TABLE cases ADD COLUMN IF NOT EXISTS deadline_basis DATETIME(3) NULL AFTER escalated_at;
ALTER TABLE cases ADD COLUMN IF NOT EXISTS deadline_priority ENUM('critical', 'high', 'normal', 'low') NULL AFTER deadline_basis;

-- The escalation figures count breaches per mailbox from the case history.
CREATE INDEX IF NOT EXISTS ix_case_events_type ON case_events (event_type, case_id);
