/**
 * The embedded vector store's MariaDB side: the backfill of passages stored without a vector of
 * the current model. Mail vectors are read with their scope's candidates
 * (scoped-passage-queries.ts), never all at once; the knowledge folder's through its
 * nearest-neighbour index (knowledge-neighbours.mariadb.ts).
 */
import type { Embedder } from './embedder.port';
import type { VectorBackfill } from './vector-index.port';
import { logKnowledgeChanges } from './knowledge-neighbours.mariadb';
import { encodeVector } from './vectors';
import { query, type Pool } from '../platform/pool.mariadb';

/** Passages per embedder call when backfilling: the OpenAI adapter's request size. */
const BACKFILL_BATCH = 64;

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
      // The knowledge folder's nearest-neighbour indexes take the new vectors from the log.
      if (table === 'knowledge_passages')
        for (const id of new Set(rows.map((r) => r.id))) await logKnowledgeChanges(pool, { sourceId: id });
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
