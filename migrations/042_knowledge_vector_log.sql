-- The knowledge folder's vectors are searched through an approximate-nearest-neighbour index that
-- each worker keeps in process (and in a file); MariaDB stays the source of truth. A passage gets a
-- numeric id (the index's key), and every write or removal of a knowledge passage appends its id to
-- this log, so each worker catches up by sequence number instead of re-reading the whole folder.
ALTER TABLE knowledge_passages
  ADD COLUMN IF NOT EXISTS id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
  ADD KEY IF NOT EXISTS idx_knowledge_passages_id (id);

CREATE TABLE IF NOT EXISTS knowledge_vector_log (
  seq BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  passage_id BIGINT UNSIGNED NOT NULL,
  logged_at TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  KEY idx_knowledge_vector_log_at (logged_at)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_unicode_ci;
