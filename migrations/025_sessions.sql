-- Review-inbox sessions, shared by every inbox process (a restart or a second process behind a
-- load balancer keeps people signed in). The session id is stored only as its SHA-256: a copy of
-- this table does not let anyone ride a session. `user_name` and `role` are who signed in and the
-- role they had then (a role changed since ends the session); anonymous rows hold only the CSRF
-- secret and language of a login page. `expires_at` is the absolute end (INBOX_SESSION_HOURS);
-- `last_seen_at` drives the idle end (INBOX_SESSION_IDLE_MINUTES).
CREATE TABLE IF NOT EXISTS inbox_sessions (
  id_hash CHAR(64) NOT NULL PRIMARY KEY,
  user_name VARCHAR(191) NULL,
  role VARCHAR(16) NULL,
  data TEXT NOT NULL,
  created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  last_seen_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  expires_at DATETIME(3) NOT NULL,
  address VARCHAR(45) NULL,
  user_agent VARCHAR(160) NULL,
  KEY ix_inbox_sessions_user (user_name),
  KEY ix_inbox_sessions_expiry (expires_at)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_unicode_ci;

-- Failed sign-ins per account (the lower-cased name typed, known or not, so that a lock does not
-- tell whether a name exists) and per client address (IPv6 by its /64). A row counts failures
-- since `window_started_at`; `next_attempt_at` is the growing delay or the lock.
CREATE TABLE IF NOT EXISTS inbox_login_throttle (
  scope ENUM('account', 'address') NOT NULL,
  subject VARCHAR(191) NOT NULL,
  failures INT UNSIGNED NOT NULL DEFAULT 0,
  window_started_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  last_failure_at DATETIME(3) NULL,
  next_attempt_at DATETIME(3) NULL,
  PRIMARY KEY (scope, subject)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
