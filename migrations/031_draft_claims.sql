-- Claim-level grounding (docs/pipeline.md, "Grounding"): each factual sentence of a draft, the
-- context ids its drafter tied it to, what the grounding check found (supported, unsupported,
-- mis_tied) and the items that do support it. One row per draft and sentence, written by the
-- draft step beside the draft; the review page and earned autonomy read it.
CREATE TABLE IF NOT EXISTS draft_claims (
  draft_id VARCHAR(191) NOT NULL,
  sentence_index SMALLINT UNSIGNED NOT NULL,
  email_id VARCHAR(191) NOT NULL,
  sentence TEXT NOT NULL,
  cited_ids TEXT NOT NULL,
  verdict VARCHAR(16) NOT NULL,
  supported_by TEXT NOT NULL,
  checked_by VARCHAR(16) NOT NULL,
  created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  PRIMARY KEY (draft_id, sentence_index),
  KEY ix_draft_claims_email (email_id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_unicode_ci;
