-- The per-correspondent reply limit (REPLY_LIMIT_PER_HOUR) counts the drafts written to one
-- address in the last hour: one index range instead of a scan of every draft.
CREATE INDEX IF NOT EXISTS ix_drafts_to_address_created ON drafts (to_address, created_at);
