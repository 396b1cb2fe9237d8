-- The case clock (one workflow per installation, `case-clock`) keeps every case's reminder, breach
-- and quiet close on one timer. It writes here when it will next wake; a step that plans a case due
-- earlier lowers the time and wakes it. One row.
CREATE TABLE IF NOT EXISTS case_clock (
  id TINYINT UNSIGNED NOT NULL PRIMARY KEY,
  next_wake_at DATETIME(3) NULL,
  updated_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3) ON UPDATE CURRENT_TIMESTAMP(3)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
INSERT IGNORE INTO case_clock (id, next_wake_at) VALUES (1, NULL);

-- What the clock asks each time it wakes: reminders and breaches due, quiet cases to close.
CREATE INDEX IF NOT EXISTS ix_cases_status_remind ON cases (status, remind_at);
