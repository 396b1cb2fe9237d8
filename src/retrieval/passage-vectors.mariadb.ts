/**
 * The embedded vector store's MariaDB side: the knowledge folder's vectors, read once and kept
 * in process while the folder is unchanged, and the backfill of passages stored without a vector
 * of the current model. Mail vectors are read with their scope's candidates
 * (scoped-passage-queries.ts), never all at once.
 */
import type { Embedder } from './embedder.port';
import type { VectorBackfill } from './vector-index.port';
import { decodeVector, encodeVector } from './vectors';
import { query, type Pool } from '../platform/pool.mariadb';

export interface KnowledgeVectorRow {
  email_id: string;
  idx: number;
  title: string;
  text: string;
  vector: Float32Array | null;
}

/** The knowledge folder is small; past this many passages the rest is found by words only. */
export const KNOWLEDGE_VECTOR_CAP = 5_000;
/** Passages per embedder call when backfilling: the OpenAI adapter's request size. */
const BACKFILL_BATCH = 64;

/**
 * The knowledge passages with vectors of `model`, cached until the folder changes: a cheap
 * fingerprint (passage and vector counts, the ledger's last sync) is read on every retrieval, so
 * a sync by another process (`email-rag knowledge sync`, another worker) is seen at once.
 */
export function createKnowledgeVectors(pool: Pool, model: string, cap = KNOWLEDGE_VECTOR_CAP) {
  let cached: { fingerprint: string; rows: KnowledgeVectorRow[] } | null = null;

  async function fingerprint(): Promise<string> {
    const [row] = await query<Array<{ n: unknown; v: unknown; at: unknown }>>(
      pool,
      'checking the knowledge folder for changes',
      `SELECT (SELECT COUNT(*) FROM knowledge_passages) AS n,
              (SELECT COUNT(*) FROM knowledge_passages WHERE embedding_model = ?) AS v,
              (SELECT MAX(indexed_at) FROM knowledge_files) AS at`,
      [model],
    );
    const at = row?.at instanceof Date ? row.at.getTime() : String(row?.at ?? '');
    return `${String(row?.n)}:${String(row?.v)}:${at}`;
  }

  return {
    /** Called after this process wrote or removed knowledge passages. */
    invalidate(): void {
      cached = null;
    },
    async rows(): Promise<KnowledgeVectorRow[]> {
      const current = await fingerprint();
      if (cached?.fingerprint === current) return cached.rows;
      const found = await query<Array<{ email_id: string; idx: number; title: string; text: string; embedding: Buffer | null }>>(
        pool,
        'reading the knowledge folder’s vectors',
        `SELECT source_id AS email_id, idx, title, text, embedding FROM knowledge_passages
         WHERE embedding_model = ? ORDER BY source_id, idx LIMIT ?`,
        [model, cap],
      );
      const rows = found.map((r) => ({
        email_id: r.email_id,
        idx: r.idx,
        title: r.title,
        text: r.text,
        vector: decodeVector(r.embedding),
      }));
      cached = { fingerprint: current, rows };
      return rows;
    },
  };
}

/** The SQL value pair of one passage's vector: both NULL when it has none. */
export function vectorColumns(vector: readonly number[] | null | undefined, model: string | null): [Buffer | null, string | null] {
  return vector && vector.length > 0 && model ? [encodeVector(vector), model] : [null, null];
}

const STALE = '(embedding_model IS NULL OR embedding_model <> ?)';

/**
 * Embeds up to `limit` passages (knowledge first: the folder is shared by every draft) that have
 * no vector of the embedder's model, `BACKFILL_BATCH` per call. A row rewritten meanwhile (other
 * text, or already embedded) is left alone.
 */
export async function backfillVectors(pool: Pool, embedder: Embedder, limit: number): Promise<VectorBackfill> {
  const tables = [
    { table: 'knowledge_passages', id: 'source_id' },
    { table: 'passages', id: 'email_id' },
  ] as const;
  const sources = new Set<string>();
  let passages = 0;
  for (const { table, id } of tables) {
    while (passages < limit) {
      const want = Math.min(BACKFILL_BATCH, limit - passages);
      // No ORDER BY: right after the migration every row matches, and sorting them all each run would cost more than it helps.
      const rows = await query<Array<{ id: string; idx: number; text: string }>>(
        pool,
        'finding passages without vectors',
        `SELECT ${id} AS id, idx, text FROM ${table} WHERE ${STALE} LIMIT ?`,
        [embedder.model, want],
      );
      if (rows.length === 0) break;
      const vectors = await embedder.embed(
        rows.map((r) => r.text),
        'passage',
      );
      for (const [i, r] of rows.entries()) {
        const [embedding, model] = vectorColumns(vectors[i], embedder.model);
        await query(
          pool,
          'storing a backfilled vector',
          `UPDATE ${table} SET embedding = ?, embedding_model = ? WHERE ${id} = ? AND idx = ? AND text = ? AND ${STALE}`,
          [embedding, model, r.id, r.idx, r.text, embedder.model],
        );
        sources.add(r.id);
      }
      passages += rows.length;
      if (rows.length < want) break;
    }
  }
  let more = false;
  for (const { table } of tables) {
    const left = await query<unknown[]>(pool, 'finding passages without vectors', `SELECT 1 FROM ${table} WHERE ${STALE} LIMIT 1`, [
      embedder.model,
    ]);
    more ||= left.length > 0;
  }
  return { sources: [...sources], passages, more };
}
