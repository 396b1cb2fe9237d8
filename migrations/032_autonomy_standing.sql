-- Where each listed category of a mailbox stood at its last verdict: whether its record qualified
-- for automatic sending, the figures, and when it was last demoted or promoted. A change of
-- `qualified` is made by one conditional UPDATE, so one verdict (of many at once) audits it.
CREATE TABLE IF NOT EXISTS autonomy_standing (
  mailbox_id VARCHAR(64) NOT NULL,
  category VARCHAR(100) NOT NULL,
  qualified TINYINT(1) NOT NULL,
  reviewed INT UNSIGNED NOT NULL,
  unchanged INT UNSIGNED NOT NULL,
  lower_bound DOUBLE NOT NULL,
  judged_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  last_demoted_at DATETIME(3) NULL,
  last_promoted_at DATETIME(3) NULL,
  PRIMARY KEY (mailbox_id, category)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_unicode_ci;
