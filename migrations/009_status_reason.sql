-- Why an email has its status (the workflow decides it; e.g. a triage class, `too_large`, an LLM timeout).
ALTER TABLE emails ADD COLUMN IF NOT EXISTS status_reason VARCHAR(2000) NULL;
-- Every email status the workflow may record, including `ignored` (triage).
ALTER TABLE emails MODIFY COLUMN status ENUM('fetched', 'parsed', 'indexed', 'partially_indexed', 'drafted',
  'awaiting_approval', 'approved', 'sent', 'rejected', 'manual_review', 'failed', 'ignored') NOT NULL DEFAULT 'fetched';
