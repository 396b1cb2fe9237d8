-- Notes for the reviewer (json_repaired, offline_template, possible_prompt_injection, …) kept with the draft.
ALTER TABLE drafts ADD COLUMN IF NOT EXISTS flags TEXT NULL;
