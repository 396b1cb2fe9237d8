-- Who looked at which email in the review inbox, and who exported or erased whose data.
-- Kept RETENTION_ACCESS_LOG_DAYS; never holds a correspondent's address in clear (subject_hash).
CREATE TABLE IF NOT EXISTS access_log (
  id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  actor VARCHAR(191) NOT NULL,
  action VARCHAR(32) NOT NULL,
  email_id VARCHAR(191) NULL,
  -- The salted hash of the address an export or erasure was about.
  subject_hash CHAR(64) NULL,
  detail VARCHAR(1000) NOT NULL DEFAULT '',
  created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  KEY ix_access_log_actor (actor, created_at),
  KEY ix_access_log_email (email_id, created_at),
  KEY ix_access_log_created (created_at)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_unicode_ci;

-- One secret salt per installation: addresses are hashed with it, so a hash in the audit trail
-- cannot be checked against a list of addresses without the database.
CREATE TABLE IF NOT EXISTS privacy_salt (
  id TINYINT UNSIGNED NOT NULL PRIMARY KEY,
  salt CHAR(64) NOT NULL
) ENGINE = InnoDB;
INSERT IGNORE INTO privacy_salt (id, salt) VALUES (1, SHA2(CONCAT(UUID(), RAND(), NOW(6)), 256));

-- The progress of one erasure, keyed by the address hash: a re-run continues where it stopped.
CREATE TABLE IF NOT EXISTS privacy_erasures (
  address_hash CHAR(64) NOT NULL PRIMARY KEY,
  requested_by VARCHAR(191) NOT NULL,
  forced TINYINT(1) NOT NULL DEFAULT 0,
  -- The ids found when the erasure started (JSON array): erased in every store, step by step.
  email_ids MEDIUMTEXT NOT NULL,
  -- Steps done (JSON object: step → count).
  done TEXT NOT NULL,
  started_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  finished_at DATETIME(3) NULL
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_unicode_ci;

CREATE INDEX IF NOT EXISTS ix_audit_created ON audit_log (created_at);
CREATE INDEX IF NOT EXISTS ix_emails_from_address ON emails (from_address(191));
CREATE INDEX IF NOT EXISTS ix_drafts_to_address ON drafts (to_address(191));
