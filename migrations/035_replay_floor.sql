-- The replay's floor (docs/replay.md "The report"): per pair, the similarity a fixed polite
-- non-answer in the mailbox's language reaches against the reply the team sent, beside the draft's
-- own. Null for pairs measured before it existed, and wherever the draft's similarity is null.
ALTER TABLE replay_results ADD COLUMN IF NOT EXISTS non_answer_similarity DOUBLE NULL AFTER similarity;
