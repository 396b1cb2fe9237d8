-- The case's other open mails a draft answers (JSON list of email ids), as its drafter said: a
-- case reply marks a covered mail answered only when the lead draft answers it (docs/cases.md).
ALTER TABLE drafts ADD COLUMN IF NOT EXISTS answers_email_ids TEXT NULL;
