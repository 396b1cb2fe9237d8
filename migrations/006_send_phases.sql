-- Send level as the design fixes it: `in_doubt` (the message may have been handed over; a person
-- decides) and `bounced`. `phase` is the SMTP phase the current attempt reached: only a row whose
-- phase passed the final dot of DATA can be in doubt. `attempt_token` fences attempts: only the
-- holder of the claim may write the final dot. Who forced a resend (once per key) and who resolved
-- a doubt are kept with the row.
ALTER TABLE send_attempts
  MODIFY COLUMN status ENUM('pending', 'sending', 'sent', 'failed', 'in_doubt', 'bounced') NOT NULL DEFAULT 'pending';

ALTER TABLE send_attempts
  ADD COLUMN IF NOT EXISTS phase VARCHAR(16) NULL AFTER status,
  ADD COLUMN IF NOT EXISTS attempt_token VARCHAR(64) NULL AFTER phase,
  ADD COLUMN IF NOT EXISTS in_doubt_at DATETIME(3) NULL,
  ADD COLUMN IF NOT EXISTS forced_by VARCHAR(191) NULL,
  ADD COLUMN IF NOT EXISTS force_key VARCHAR(191) NULL,
  ADD COLUMN IF NOT EXISTS forced_at DATETIME(3) NULL,
  ADD COLUMN IF NOT EXISTS resolved_by VARCHAR(191) NULL,
  ADD COLUMN IF NOT EXISTS resolved_at DATETIME(3) NULL,
  ADD COLUMN IF NOT EXISTS resolution_note TEXT NULL;

CREATE INDEX IF NOT EXISTS ix_send_attempts_status ON send_attempts (status);
