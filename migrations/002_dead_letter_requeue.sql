-- Who put a dead job back into the retry cycle, when, and how often (seed 004: authorised re-run).
ALTER TABLE queue_jobs
  ADD COLUMN IF NOT EXISTS requeue_count INT UNSIGNED NOT NULL DEFAULT 0,
  ADD COLUMN IF NOT EXISTS requeued_by VARCHAR(191) NULL,
  ADD COLUMN IF NOT EXISTS requeued_at DATETIME(3) NULL;
