/**
 * The knowledge folder's document frequencies (informative-terms.ts), estimated from a sample of
 * its passages read from MariaDB: the whole folder while it is small, else passages at random
 * ids. A sample of 2,000 tells a word that 5 % of the folder holds from one that 0.5 % holds,
 * which is all the choice of words needs; exact counts would need the full-text index's own
 * statistics, which MariaDB shows only through a server-wide setting (`innodb_ft_aux_table`).
 */
import { randomInt } from 'node:crypto';
import { query, type Pool } from '../platform/pool.mariadb';
import { fullTextWords, type DocumentFrequencies } from './informative-terms';

/** Passages read for the estimate. */
export const TERM_SAMPLE = 2_000;
/**
 * How long an estimate is used before it is read again. Frequencies move only when a large share
 * of the folder changes; a stale estimate only picks slightly other words, never misses a passage
 * the words reach.
 */
export const TERM_SAMPLE_MS = 10 * 60_000;
/** A folder read whole (smaller than the sample) is read again sooner: a first import grows it fast, and reading it is cheap. */
const SMALL_FOLDER_MS = 60_000;

export function createKnowledgeTermSample(pool: Pool, options: { sample?: number; refreshMs?: number } = {}) {
  const size = options.sample ?? TERM_SAMPLE;
  const refreshMs = options.refreshMs ?? TERM_SAMPLE_MS;
  let current: { at: number; ttl: number; df: Promise<DocumentFrequencies> } | null = null;

  async function read(): Promise<DocumentFrequencies> {
    const [range] = await query<Array<{ lo: unknown; hi: unknown; n: unknown }>>(
      pool,
      'reading the knowledge folder’s size',
      'SELECT MIN(id) AS lo, MAX(id) AS hi, COUNT(*) AS n FROM knowledge_passages',
    );
    const passages = Number(range?.n ?? 0);
    if (passages === 0) return { passages: 0, sampled: 0, holding: new Map() };
    const lo = Number(range!.lo);
    const hi = Number(range!.hi);
    let rows: Array<{ text: string }>;
    if (hi - lo + 1 <= size) {
      rows = await query(pool, 'sampling the knowledge folder’s words', 'SELECT text FROM knowledge_passages WHERE id BETWEEN ? AND ?', [
        lo,
        hi,
      ]);
    } else {
      // Ids are dense but for removed passages: random ids in the range are a random sample.
      const ids = new Set<number>();
      while (ids.size < size) ids.add(randomInt(lo, hi + 1));
      rows = await query(
        pool,
        'sampling the knowledge folder’s words',
        `SELECT text FROM knowledge_passages WHERE id IN (${[...ids].map(() => '?').join(', ')})`,
        [...ids],
      );
    }
    const holding = new Map<string, number>();
    for (const r of rows) for (const w of fullTextWords(r.text)) holding.set(w, (holding.get(w) ?? 0) + 1);
    return { passages, sampled: rows.length, holding };
  }

  return {
    /** The current estimate; read again after `refreshMs` (the reads of one moment share one query). */
    frequencies(): Promise<DocumentFrequencies> {
      const now = Date.now();
      if (!current || now - current.at >= current.ttl) {
        const df = read();
        const entry = { at: now, ttl: refreshMs, df };
        current = entry;
        df.then(
          (d) => {
            if (d.sampled < size) entry.ttl = Math.min(refreshMs, SMALL_FOLDER_MS);
          },
          () => {
            if (current === entry) current = null;
          },
        );
      }
      return current.df;
    },
  };
}

export type KnowledgeTermSample = ReturnType<typeof createKnowledgeTermSample>;
