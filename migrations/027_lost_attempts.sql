-- Attempts of a step that ended with their worker (a crash, a kill, a rolling deploy): the worker
-- never reported a result, so the attempt is run again and does not count against the step's
-- own retry budget (a model's two attempts are for the model's failures, not ours).
ALTER TABLE queue_jobs ADD COLUMN IF NOT EXISTS lost_attempts INT UNSIGNED NOT NULL DEFAULT 0 AFTER retry_count;
