-- Push intake (IMAP IDLE): one row per mailbox folder with how its watcher stands, for
-- `email-rag status` and the metrics. Upserted by the watcher itself; `seen_at` moves with its
-- heartbeat, so a watcher whose worker died shows as stale rather than idle.
CREATE TABLE IF NOT EXISTS mailbox_watchers (
  mailbox_id VARCHAR(64) NOT NULL,
  folder VARCHAR(191) NOT NULL,
  state ENUM('connecting', 'idle', 'reconnecting', 'stopped') NOT NULL,
  -- When the watcher entered this state.
  since DATETIME(3) NOT NULL,
  seen_at DATETIME(3) NOT NULL,
  last_error TEXT NULL,
  last_error_at DATETIME(3) NULL,
  -- Connections lost (or refused) since the row was created: the reconnect counter's source.
  reconnects INT UNSIGNED NOT NULL DEFAULT 0,
  -- New-mail notices that made the poll run.
  wakeups INT UNSIGNED NOT NULL DEFAULT 0,
  PRIMARY KEY (mailbox_id, folder)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_unicode_ci;
