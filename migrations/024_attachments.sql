-- Every attachment of an incoming mail, with its content: one row per MIME part (natural key:
-- email and part index, so a retried parse step writes the same rows again). `data` holds the
-- first chunk (the whole file when it is small), the rest is in email_attachment_parts, like raw mail.
CREATE TABLE IF NOT EXISTS email_attachments (
  email_id VARCHAR(191) NOT NULL,
  part_index INT UNSIGNED NOT NULL,
  filename VARCHAR(255) NULL,
  declared_type VARCHAR(255) NOT NULL,
  -- The type its bytes say (magic numbers), never the name or the declared type; NULL: unknown.
  detected_type VARCHAR(255) NULL,
  size BIGINT UNSIGNED NOT NULL,
  sha256 CHAR(64) NOT NULL,
  disposition VARCHAR(32) NULL,
  content_id VARCHAR(255) NULL,
  chunks INT UNSIGNED NOT NULL DEFAULT 1,
  data LONGBLOB NOT NULL,
  -- What the index step made of it: extracted, encrypted, unreadable, skipped (not text).
  text_state VARCHAR(16) NULL,
  text_note VARCHAR(500) NULL,
  created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  PRIMARY KEY (email_id, part_index),
  KEY ix_email_attachments_cid (email_id, content_id(191))
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_unicode_ci;

CREATE TABLE IF NOT EXISTS email_attachment_parts (
  email_id VARCHAR(191) NOT NULL,
  part_index INT UNSIGNED NOT NULL,
  seq INT UNSIGNED NOT NULL,
  data LONGBLOB NOT NULL,
  PRIMARY KEY (email_id, part_index, seq)
) ENGINE = InnoDB;

-- The text read from an attachment, per page (PDF) or section (1 for single-piece formats):
-- what the draft step cites as attachment:<file>#p<page>.
CREATE TABLE IF NOT EXISTS email_attachment_texts (
  email_id VARCHAR(191) NOT NULL,
  part_index INT UNSIGNED NOT NULL,
  page INT UNSIGNED NOT NULL,
  text MEDIUMTEXT NOT NULL,
  PRIMARY KEY (email_id, part_index, page)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_unicode_ci;
