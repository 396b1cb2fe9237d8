-- The per-correspondent reply limit (REPLY_LIMIT_PER_HOUR): one row per email whose first draft
-- the limit let through, by the address the reply goes to. An email takes its row before the model
-- writes, and its rank among the address's rows of the hour decides: emails drafted at the same
-- moment see each other, so no more than the limit pass.
CREATE TABLE IF NOT EXISTS reply_slots (
  email_id VARCHAR(191) NOT NULL PRIMARY KEY,
  address VARCHAR(320) NOT NULL,
  created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  KEY ix_reply_slots_address (address, created_at)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_unicode_ci;
