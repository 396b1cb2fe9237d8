-- Whose data a draft may see: every passage carries the account (with the mailbox, the isolation
-- key) and the correspondent it belongs to (the sender of inbound mail, the recipient of our
-- replies), so retrieval can filter on both. Knowledge-folder passages are a third direction.
ALTER TABLE passages
  ADD COLUMN IF NOT EXISTS account VARCHAR(191) NOT NULL DEFAULT '' AFTER idx,
  ADD COLUMN IF NOT EXISTS correspondent VARCHAR(320) NOT NULL DEFAULT '' AFTER from_address,
  ADD COLUMN IF NOT EXISTS organisation VARCHAR(255) NULL AFTER correspondent,
  ADD COLUMN IF NOT EXISTS title VARCHAR(512) NOT NULL DEFAULT '' AFTER organisation,
  MODIFY COLUMN direction ENUM('in', 'out', 'knowledge') NOT NULL;
-- Entries written before: inbound mail belongs to its sender; our old replies stay without a
-- correspondent, so they are only ever shown masked.
UPDATE passages SET correspondent = LOWER(from_address) WHERE direction = 'in' AND correspondent = '';
CREATE INDEX IF NOT EXISTS ix_passages_scope ON passages (account, mailbox, correspondent(191));
CREATE INDEX IF NOT EXISTS ix_passages_organisation ON passages (account, mailbox, organisation(191));
CREATE INDEX IF NOT EXISTS ix_passages_direction ON passages (direction);

-- The account an email arrived in: threads are joined within one account only.
ALTER TABLE emails ADD COLUMN IF NOT EXISTS account VARCHAR(191) NOT NULL DEFAULT '' AFTER source;
CREATE INDEX IF NOT EXISTS ix_emails_account_message_id ON emails (account, message_id(191));

-- What `email-rag knowledge sync` indexed last: a changed file is re-indexed, a removed one removed.
CREATE TABLE IF NOT EXISTS knowledge_files (
  path VARCHAR(512) NOT NULL PRIMARY KEY,
  sha256 CHAR(64) NOT NULL,
  passages INT UNSIGNED NOT NULL,
  indexed_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3) ON UPDATE CURRENT_TIMESTAMP(3)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_unicode_ci;
