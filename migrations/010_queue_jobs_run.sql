-- A reset workflow run numbers its activities from 1 again: its queue rows must not overwrite the first run's.
ALTER TABLE queue_jobs ADD COLUMN IF NOT EXISTS run_id VARCHAR(64) NOT NULL DEFAULT '' AFTER workflow_id;
ALTER TABLE queue_jobs DROP INDEX IF EXISTS uq_queue_jobs_step;
ALTER TABLE queue_jobs ADD UNIQUE KEY IF NOT EXISTS uq_queue_jobs_run_step (workflow_id, run_id, step, activity_id);
