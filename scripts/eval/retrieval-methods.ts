/**
 * The one place where the eval picks a retrieval method. Words only is the product's index as it
 * is; vectors only and fused come from `createFullTextIndex(pool, { embedder, method })` once the
 * index takes an embedder. Until then they are served by a stand-in below that follows the agreed
 * design (knowledge passages embedded at index time, cosine in process, reciprocal rank fusion
 * k = 60 with the index's own word ranking), so the harness and its figures exist beforehand.
 * Integration: replace the body of `createEvalIndex` with the product call and delete the stand-in.
 */
import { createFullTextIndex } from '../../adapters/mariadb/fulltext-index';
import { query, type Pool } from '../../adapters/mariadb/pool';
import { knowledgeSearch } from '../../adapters/mariadb/scoped-passage-queries';
import { knowledgeSourceId } from '../../lib/context-scope';
import { splitPassages } from '../../lib/passages';
import type { DraftContextItem } from '../../ports/drafter';
import type { Embedder } from '../../ports/embedder';
import type { IndexableEmail, VectorIndex } from '../../ports/vector-index';

/** As RETRIEVAL_METHOD: `hybrid` is the fused ranking. */
export type RetrievalMethod = 'words' | 'vectors' | 'hybrid';
export const RETRIEVAL_METHODS: readonly RetrievalMethod[] = ['words', 'vectors', 'hybrid'];

export function createEvalIndex(pool: Pool, method: RetrievalMethod, embedder?: Embedder): VectorIndex {
  if (method === 'words') return createFullTextIndex(pool);
  if (!embedder) throw new Error(`retrieval method ${method} needs an embedder`);
  return createStandInIndex(pool, method, embedder);
}

/** The product's knowledge budget per retrieval (KNOWLEDGE_LIMIT in fulltext-index.ts). */
const KNOWLEDGE_LIMIT = 3;
/** How deep each ranking goes before fusion. */
const CANDIDATES = 20;
const RRF_K = 60;

interface StoredPassage {
  sourceId: string;
  title: string;
  text: string;
  vector: number[];
}

function cosine(a: number[], b: number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

function createStandInIndex(pool: Pool, method: 'vectors' | 'hybrid', embedder: Embedder): VectorIndex {
  const words = createFullTextIndex(pool);
  const passages = new Map<string, StoredPassage>();
  return {
    name: `eval-stand-in-${method}`,
    async index(email: IndexableEmail): Promise<void> {
      await words.index(email);
      if (email.direction !== 'knowledge') return;
      // The same passages the index stores (passageRows: subject, blank line, text).
      const texts = splitPassages(`${email.subject}\n\n${email.text}`);
      const vectors = await embedder.embed(texts, 'passage');
      texts.forEach((text, idx) => {
        const sourceId = knowledgeSourceId(email.emailId, idx);
        passages.set(sourceId, { sourceId, title: email.subject, text, vector: vectors[idx]! });
      });
    },
    async retrieve(email: IndexableEmail): Promise<DraftContextItem[]> {
      const probe = `${email.subject} ${email.text.slice(0, 1000)}`;
      const st = knowledgeSearch(probe, CANDIDATES);
      const wordRows = await query<Array<{ email_id: string; idx: number }>>(pool, 'searching the knowledge folder', st.sql, st.args);
      const [q] = await embedder.embed([probe], 'query');
      const byVector = [...passages.values()]
        .map((p) => ({ p, cosine: cosine(q!, p.vector) }))
        .sort((a, b) => b.cosine - a.cosine)
        .slice(0, CANDIDATES);
      const found = new Map<string, { wordRank?: number; vectorRank?: number; cosine?: number }>();
      if (method === 'hybrid') {
        wordRows.forEach((r, i) => found.set(knowledgeSourceId(r.email_id, r.idx), { wordRank: i + 1 }));
      }
      byVector.forEach((v, i) => found.set(v.p.sourceId, { ...found.get(v.p.sourceId), vectorRank: i + 1, cosine: v.cosine }));
      const fused = (m: { wordRank?: number; vectorRank?: number }) =>
        (m.wordRank ? 1 / (RRF_K + m.wordRank) : 0) + (m.vectorRank ? 1 / (RRF_K + m.vectorRank) : 0);
      return [...found.entries()]
        .filter(([id]) => passages.has(id))
        .map(([id, m]) => ({ p: passages.get(id)!, m, score: fused(m) }))
        .sort((a, b) => b.score - a.score || (b.m.cosine ?? 0) - (a.m.cosine ?? 0))
        .slice(0, KNOWLEDGE_LIMIT)
        .map(({ p, m, score }) => ({
          sourceId: p.sourceId,
          kind: 'knowledge' as const,
          text: p.text,
          title: p.title,
          match: { fused: score, ...m },
        }));
    },
  };
}
