-- Draft quality in operation: one row per decided draft with what became of it, and the figures
-- it is grouped by. Denormalised on purpose: the row is a fact about the draft at the moment it
-- was decided, the reports read one table by one index range (decided_at) without touching the
-- drafts' bodies, and the figures survive when mail is erased (no customer data is kept here).
-- The drafter's category for the email, kept with its draft (it was only a search attribute).
ALTER TABLE drafts ADD COLUMN IF NOT EXISTS category VARCHAR(100) NULL;
CREATE TABLE IF NOT EXISTS draft_outcomes (
  draft_id VARCHAR(191) NOT NULL PRIMARY KEY,
  email_id VARCHAR(191) NOT NULL,
  outcome ENUM('approved_unchanged', 'light_edit', 'heavy_edit', 'rejected', 'redrafted', 'written_by_person') NOT NULL,
  -- Words changed by the approving person (drafts.edit_distance) and their share of the longer text.
  edit_distance INT UNSIGNED NULL,
  changed_share DOUBLE NULL,
  mailbox_id VARCHAR(64) NOT NULL DEFAULT 'default',
  category VARCHAR(100) NOT NULL DEFAULT 'unknown',
  language VARCHAR(16) NOT NULL,
  -- For a reply a person wrote: the drafter, model and prompt of the machine draft it replaced.
  drafter VARCHAR(64) NOT NULL,
  model VARCHAR(191) NOT NULL,
  prompt_version VARCHAR(64) NOT NULL,
  no_relevant_context TINYINT(1) NOT NULL DEFAULT 0,
  decided_by VARCHAR(191) NULL,
  decided_at DATETIME(3) NOT NULL,
  KEY ix_draft_outcomes_decided (decided_at),
  KEY ix_draft_outcomes_email (email_id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_unicode_ci;
-- Drafts decided before this migration. Words as the product counts them (runs of whitespace
-- separate words); the share is edit_distance / max(words before, words after).
INSERT IGNORE INTO draft_outcomes (draft_id, email_id, outcome, edit_distance, changed_share, mailbox_id, category, language,
    drafter, model, prompt_version, no_relevant_context, decided_by, decided_at)
  SELECT w.id, w.email_id,
    CASE
      WHEN w.status = 'stale' THEN 'redrafted'
      WHEN w.status = 'rejected' THEN 'rejected'
      WHEN w.own_drafter = 'human' THEN 'written_by_person'
      WHEN COALESCE(w.edit_distance, 0) = 0 THEN 'approved_unchanged'
      WHEN w.edit_distance / GREATEST(w.words_before, w.words_after, 1) < 0.4 THEN 'light_edit'
      ELSE 'heavy_edit'
    END,
    IF(w.status IN ('approved', 'sent') AND w.own_drafter <> 'human', COALESCE(w.edit_distance, 0), NULL),
    IF(w.status IN ('approved', 'sent') AND w.own_drafter <> 'human', COALESCE(w.edit_distance, 0) / GREATEST(w.words_before, w.words_after, 1), NULL),
    w.mailbox_id, w.category, w.language, w.drafter, w.model, w.prompt_version, w.no_context, w.decided_by, w.decided_at
  FROM (
    SELECT t.*,
      IF(t.before_text = '', 0, 1 + CHAR_LENGTH(t.before_text) - CHAR_LENGTH(REPLACE(t.before_text, ' ', ''))) AS words_before,
      IF(t.after_text = '', 0, 1 + CHAR_LENGTH(t.after_text) - CHAR_LENGTH(REPLACE(t.after_text, ' ', ''))) AS words_after
    FROM (
      SELECT d.id, d.email_id, d.status, d.edit_distance, d.drafter AS own_drafter,
        REGEXP_REPLACE(REGEXP_REPLACE(d.body, '^[[:space:]]+|[[:space:]]+$', ''), '[[:space:]]+', ' ') AS before_text,
        REGEXP_REPLACE(REGEXP_REPLACE(COALESCE(d.approved_body, d.body), '^[[:space:]]+|[[:space:]]+$', ''), '[[:space:]]+', ' ') AS after_text,
        COALESCE(e.mailbox_id, 'default') AS mailbox_id,
        COALESCE(d.category, p.category, 'unknown') AS category,
        COALESCE(p.language, d.language) AS language,
        IF(d.drafter = 'human', COALESCE(p.drafter, 'human'), d.drafter) AS drafter,
        IF(d.drafter = 'human', COALESCE(p.model, ''), d.model) AS model,
        IF(d.drafter = 'human', COALESCE(p.prompt_version, 'human'), d.prompt_version) AS prompt_version,
        IF(COALESCE(p.flags, d.flags, '') LIKE '%"no_relevant_context"%', 1, 0) AS no_context,
        d.decided_by, COALESCE(d.decided_at, d.updated_at) AS decided_at
      FROM drafts d
      LEFT JOIN emails e ON e.id = d.email_id
      LEFT JOIN drafts p ON d.drafter = 'human' AND p.email_id = d.email_id
        AND p.version = (SELECT MAX(q.version) FROM drafts q WHERE q.email_id = d.email_id AND q.version < d.version AND q.drafter <> 'human')
      WHERE d.status IN ('approved', 'sent', 'rejected', 'stale')
    ) t
  ) w
