-- A person's rating of a draft beside the reply the team sent (docs/answered-elsewhere.md#rating-pairs):
-- `as_is` (would have sent it unchanged), `light_edit`, `rewritten`. Only rated pairs count toward
-- earned autonomy. One rating per pair: a replay result (`replay`, key run id + pair id) or shadow
-- evidence (`shadow`, key the email id).
CREATE TABLE IF NOT EXISTS pair_ratings (
  source VARCHAR(16) NOT NULL,
  pair_key VARCHAR(191) NOT NULL,
  run_id VARCHAR(64) NULL,
  rating VARCHAR(16) NOT NULL,
  rated_by VARCHAR(191) NOT NULL,
  rated_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  PRIMARY KEY (source, pair_key),
  KEY ix_pair_ratings_run (run_id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_unicode_ci;
