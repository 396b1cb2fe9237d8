-- Guidance: how a team writes (tone, form of address, phrases to avoid, promises never to make,
-- when to hand over to a person), written by its administrators and put into the draft prompt
-- (docs/guidance.md). One row per version, never updated: the newest version of a scope is its
-- current text, and a draft names the versions it was written under, so the quality figures can
-- compare them. A scope is the installation (both columns empty), a mailbox, a category, or a
-- mailbox's category; '' means "any" (a NULL would make the unique key accept duplicates).
CREATE TABLE IF NOT EXISTS guidance_versions (
  id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  mailbox_id VARCHAR(64) NOT NULL DEFAULT '',
  category VARCHAR(100) NOT NULL DEFAULT '',
  version INT UNSIGNED NOT NULL,
  text TEXT NOT NULL,
  author VARCHAR(191) NOT NULL,
  created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  UNIQUE KEY ux_guidance_scope_version (mailbox_id, category, version)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_unicode_ci;
-- The guidance versions a draft was written under ('g12+g15': ids of guidance_versions in the
-- order they entered the prompt), NULL when none applied. Kept with the outcome, like the prompt
-- version, so `email-rag quality --by guidance` reads one table.
ALTER TABLE drafts ADD COLUMN IF NOT EXISTS guidance_version VARCHAR(191) NULL;
ALTER TABLE draft_outcomes ADD COLUMN IF NOT EXISTS guidance_version VARCHAR(191) NULL;
