-- Retrieval reads by scope, newest first, instead of asking the FULLTEXT index of every passage:
-- MATCH in a WHERE clause makes MariaDB rank each passage of the whole table that shares a word
-- with the new mail and filter by account/mailbox/correspondent afterwards, so every draft cost
-- grew with the index. These B-tree indexes give a correspondent's (organisation's, mailbox's
-- replies') most recent passages directly; ranking happens on that bounded set.
CREATE INDEX IF NOT EXISTS ix_passages_correspondent_recent ON passages (account, mailbox, correspondent, created_at);
CREATE INDEX IF NOT EXISTS ix_passages_organisation_recent ON passages (account, mailbox, organisation, created_at);
CREATE INDEX IF NOT EXISTS ix_passages_direction_recent ON passages (account, mailbox, direction, created_at);
-- Left prefixes of the indexes above: only extra write cost now.
DROP INDEX IF EXISTS ix_passages_scope ON passages;
DROP INDEX IF EXISTS ix_passages_organisation ON passages;
-- The knowledge folder gets a full-text index of its own, so a knowledge search costs what the
-- folder holds, not what the mailboxes hold. `passages` keeps the knowledge rows too (source
-- views and the ledger read them there); the index adapter writes and removes both.
CREATE TABLE IF NOT EXISTS knowledge_passages (
  source_id VARCHAR(191) NOT NULL,
  idx INT UNSIGNED NOT NULL,
  title VARCHAR(512) NOT NULL DEFAULT '',
  text TEXT NOT NULL,
  PRIMARY KEY (source_id, idx),
  FULLTEXT KEY ft_knowledge_passages (text)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_unicode_ci;
INSERT IGNORE INTO knowledge_passages (source_id, idx, title, text)
  SELECT email_id, idx, title, text FROM passages WHERE direction = 'knowledge';
