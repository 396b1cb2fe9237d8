-- Vectors beside the passages (the embedded vector store): float32 little-endian, one per passage,
-- with the model that made it, because vectors of different models must never be compared.
-- NULL until embedded: written without one when the embedder was down, or indexed before this
-- migration; the re-index sync fills them in (activities/index-activities.ts).
ALTER TABLE passages ADD COLUMN IF NOT EXISTS embedding BLOB NULL;
ALTER TABLE passages ADD COLUMN IF NOT EXISTS embedding_model VARCHAR(191) NULL;
ALTER TABLE knowledge_passages ADD COLUMN IF NOT EXISTS embedding BLOB NULL;
ALTER TABLE knowledge_passages ADD COLUMN IF NOT EXISTS embedding_model VARCHAR(191) NULL;
-- The re-index sync looks for passages without a vector of the current model on every run: an
-- index keeps that a short range read instead of a scan of every passage.
CREATE INDEX IF NOT EXISTS ix_passages_embedding_model ON passages (embedding_model);
