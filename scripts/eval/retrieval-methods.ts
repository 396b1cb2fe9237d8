/**
 * The one place where the eval picks a retrieval method: the product's index with the method and
 * similarity floor a deployment would set (RETRIEVAL_METHOD, RETRIEVAL_MIN_COSINE).
 */
import { createFullTextIndex } from '../../src/retrieval/fulltext-index.mariadb';
import type { Pool } from '../../src/platform/pool.mariadb';
import { RETRIEVAL_METHODS, type RetrievalMethod } from '../../src/retrieval/hybrid-ranking';
import type { Embedder } from '../../src/retrieval/embedder.port';
import type { VectorIndex } from '../../src/retrieval/vector-index.port';

export { RETRIEVAL_METHODS, type RetrievalMethod };

export function createEvalIndex(pool: Pool, method: RetrievalMethod, embedder?: Embedder, minCosine?: number): VectorIndex {
  if (method === 'words') return createFullTextIndex(pool, { method });
  if (!embedder) throw new Error(`retrieval method ${method} needs an embedder`);
  return createFullTextIndex(pool, { embedder, method, ...(minCosine === undefined ? {} : { minCosine }) });
}
