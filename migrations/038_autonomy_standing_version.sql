-- Each change of a category's standing (a demotion or a promotion) gets the next version; its audit
-- row is keyed by mailbox, category and that version, so a retried verdict writes exactly one row
-- per change, and a category demoted again after a promotion gets a row of its own.
ALTER TABLE autonomy_standing ADD COLUMN IF NOT EXISTS version INT UNSIGNED NOT NULL DEFAULT 0 AFTER qualified;
