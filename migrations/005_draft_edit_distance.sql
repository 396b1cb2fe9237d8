-- How much the approving person changed the draft (words inserted, deleted or replaced).
ALTER TABLE drafts ADD COLUMN IF NOT EXISTS edit_distance INT UNSIGNED NULL;
