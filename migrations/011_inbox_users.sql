-- People who decide in the review inbox. `role`: reviewer (decides on drafts and sends in doubt)
-- or operator (also re-queues dead letters). A disabled user keeps their name for the audit log.
CREATE TABLE IF NOT EXISTS inbox_users (
  name VARCHAR(191) NOT NULL PRIMARY KEY,
  password_hash VARCHAR(255) NOT NULL,
  role ENUM('reviewer', 'operator') NOT NULL DEFAULT 'reviewer',
  created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  disabled_at DATETIME(3) NULL
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_unicode_ci;
