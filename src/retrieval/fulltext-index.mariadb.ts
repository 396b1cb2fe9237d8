import { FAILURE_TYPES } from '../platform/contract';
import { contextCollector } from './context-collector';
import { contextScope, entryCorrespondent, knowledgeSourceId, ownReplyItem } from './context-scope';
import { DependencyError, errorMessage } from '../platform/errors';
import { DEFAULT_MIN_COSINE, rankHybrid, type Match, type RetrievalMethod } from './hybrid-ranking';
import { emailPassages, retrievalProbe, vectorProbe } from './passages';
import { candidateFeatureMemory, type CandidateFeatures } from './candidate-features';
import type {
  DraftContextItem,
  ContextScope,
  EmbeddedPassages,
  IndexableEmail,
  ProbeVector,
  VectorBackfill,
  VectorIndex,
} from './vector-index.port';
import type { Embedder } from './embedder.port';
import { backfillVectors, vectorColumns } from './passage-vectors.mariadb';
import { createKnowledgeNeighbours, knowledgePassageIds, logKnowledgeChanges } from './knowledge-neighbours.mariadb';
import type { NearestNeighboursLibrary } from './nearest-neighbours.port';
import { usearchLibrary } from './nearest-neighbours.usearch';
import { createKnowledgeTermSample } from './knowledge-term-sample.mariadb';
import { informativeQuery } from './informative-terms';
import { KNOWLEDGE_WARN_PASSAGES } from './retrieval.config';
import { query, type Pool } from '../platform/pool.mariadb';
import {
  knowledgeByIds,
  knowledgeSearch,
  passageVectors,
  ownRecentReplies,
  theirRecentPassages,
  threadHistory,
  type PassageRow,
  type Statement,
} from './scoped-passage-queries.mariadb';

type Row = Pick<PassageRow, 'email_id' | 'idx' | 'text' | 'title'>;

const KNOWLEDGE_LIMIT = 3;
/** MATCH results the knowledge fusion sees: a few more than are shown, so vectors can lift one. */
const KNOWLEDGE_WORD_CANDIDATES = 20;
/** Nearest neighbours the knowledge fusion sees, beside MATCH's candidates. */
const KNOWLEDGE_VECTOR_CANDIDATES = 20;
const OWN_REPLY_LIMIT = 2;
/** Email ids per DELETE when forgetting: bounded statements, bounded lock time. */
const FORGET_BATCH = 200;
const SENDER_LIMIT = 3;
/** Candidates whose vectors one statement reads by key: a scope's whole cap (300) in one. */
const VECTOR_READ_BATCH = 300;

/** The columns of a `passages` row, in the order of passageRows. */
export const PASSAGE_COLUMNS = [
  'email_id',
  'idx',
  'account',
  'mailbox',
  'thread_id',
  'direction',
  'from_address',
  'correspondent',
  'organisation',
  'title',
  'text',
  'embedding',
  'embedding_model',
] as const;

/**
 * An email's passages as `passages` rows (PASSAGE_COLUMNS order), with its isolation keys and,
 * when given, their vectors (`vectors[idx]` of `model`).
 */
export function passageRows(email: IndexableEmail, vectors: number[][] | null = null, model: string | null = null): unknown[][] {
  const { correspondent, organisation } = entryCorrespondent(email);
  return emailPassages(email).map((text, idx) => [
    email.emailId,
    idx,
    email.account ?? '',
    email.mailbox,
    email.threadId,
    email.direction,
    email.fromAddress,
    correspondent,
    organisation,
    email.subject.slice(0, 512),
    text,
    ...vectorColumns(vectors?.[idx], model),
  ]);
}

export interface FullTextIndexOptions {
  /**
   * Embeds passages at index time and the new mail at retrieval; without it the index ranks by
   * words only, as before vectors.
   */
  embedder?: Embedder;
  /** RETRIEVAL_METHOD: fused (default), shared words only, or vectors only. */
  method?: RetrievalMethod;
  /** RETRIEVAL_MIN_COSINE: below it a passage is not found by vectors (src/retrieval/hybrid-ranking.ts). */
  minCosine?: number;
  /** The knowledge folder's nearest-neighbour index (src/retrieval/knowledge-neighbours.mariadb.ts). */
  knowledgeIndex?: {
    /** RETRIEVAL_INDEX_DIR: where the index file is kept; without it, in memory only. */
    dir?: string;
    /** RETRIEVAL_KNOWLEDGE_WARN_PASSAGES: past it a loud warning and `onLarge`; every passage is still searched. */
    warnPassages?: number;
    onLarge?: (passages: number) => void;
    library?: NearestNeighboursLibrary;
    /** How long a read of the change log's newest entry is trusted (LOG_CHECK_MS in knowledge-neighbours.mariadb.ts). */
    logCheckMs?: number;
  };
}

/**
 * The embedded retrieval default over MariaDB, and the default vector store. Every query is
 * scoped to the account and mailbox, and mail to the correspondent (or their organisation); our
 * replies to others come back masked, knowledge passages from anywhere. Mail is read by scope
 * (newest first, capped) and ranked in process, by words and by the cosine of the vectors stored
 * beside the passages, fused by reciprocal rank; so a retrieval costs what the scope holds and
 * vectors never widen it. The knowledge folder is searched with MariaDB full text over its own
 * table and by its vectors, kept in process (passage-vectors.ts).
 */
export function createFullTextIndex(pool: Pool, options: FullTextIndexOptions = {}): VectorIndex {
  const { embedder } = options;
  const method = options.method ?? 'hybrid';
  const minCosine = options.minCosine ?? DEFAULT_MIN_COSINE;
  const ki = options.knowledgeIndex ?? {};
  const remembered = candidateFeatureMemory();
  const knowledgeVectors = embedder
    ? createKnowledgeNeighbours(pool, {
        model: embedder.model,
        library: ki.library ?? usearchLibrary,
        dir: ki.dir,
        warnPassages: ki.warnPassages ?? KNOWLEDGE_WARN_PASSAGES,
        onLarge: ki.onLarge,
        logCheckMs: ki.logCheckMs,
      })
    : null;
  const knowledgeTerms = createKnowledgeTermSample(pool);

  /** The vectors to store with the passages: given, embedded here, or none (and why). */
  async function vectorsFor(email: IndexableEmail, embedded?: EmbeddedPassages) {
    if (embedded) return { vectors: embedded.vectors, model: embedded.model, failure: null };
    if (!embedder) return { vectors: null, model: null, failure: null };
    const passages = emailPassages(email);
    try {
      return { vectors: await embedder.embed(passages, 'passage'), model: embedder.model, failure: null };
    } catch (err) {
      // The passages are still written: words find them, and the re-index sync adds the vectors.
      return { vectors: null, model: null, failure: err };
    }
  }

  /** The probe's vector of this index's model, or null (words only). */
  async function probeVector(probe: string, given?: ProbeVector): Promise<number[] | null> {
    if (!embedder || method === 'words' || !probe) return null;
    if (given) return given.model === embedder.model ? given.vector : null;
    // Standalone (no composite): an embedder that fails leaves words only; the composite audits it.
    const [vector] = await embedder.embed([probe], 'query').catch(() => [] as number[][]);
    return vector ?? null;
  }

  /**
   * Each candidate's words and vector: remembered from an earlier draft while its text and model
   * are unchanged, else from the bytes its row carries, else read by key (one statement for all
   * such candidates of a ranking). Another model's vector lives in another space: such a passage
   * is ranked by words only.
   */
  async function featuresOf<T extends VectorRow>(rows: readonly T[], withVectors: boolean): Promise<Map<T, CandidateFeatures>> {
    const model = embedder?.model ?? null;
    const out = new Map<T, CandidateFeatures>();
    const unread: T[] = [];
    for (const r of rows) {
      const m = withVectors && model !== null && r.embedding_model === model ? model : null;
      const bytes = r.embedding === undefined ? undefined : (r.embedding ?? null);
      const kept = remembered.known(passageKey(r), r.text, m, m === null ? undefined : bytes);
      if (kept) out.set(r, kept);
      else if (m !== null && bytes === undefined) unread.push(r);
      else out.set(r, remembered.learn(passageKey(r), r.text, m, bytes ?? null));
    }
    const stored = new Map<string, { text: string; embedding: Buffer | null; embedding_model: string | null }>();
    for (let i = 0; i < unread.length; i += VECTOR_READ_BATCH) {
      const st = passageVectors(unread.slice(i, i + VECTOR_READ_BATCH));
      const rows = await query<
        Array<{ email_id: string; idx: number; text: string; embedding: Buffer | null; embedding_model: string | null }>
      >(pool, 'reading the candidates’ vectors', st.sql, st.args);
      for (const r of rows) stored.set(passageKey(r), r);
    }
    for (const r of unread) {
      const row = stored.get(passageKey(r));
      // Re-indexed between the two reads (or gone): ranked by words as read, its vector read again next time.
      const same = row !== undefined && row.text === r.text && row.embedding_model === model;
      out.set(r, remembered.learn(passageKey(r), r.text, same ? model : null, same ? row.embedding : null));
    }
    return out;
  }

  return {
    name: 'mariadb-fulltext',
    async index(email: IndexableEmail, embedded?: EmbeddedPassages): Promise<void> {
      const { vectors, model, failure } = await vectorsFor(email, embedded);
      const rows = passageRows(email, vectors, model);
      if (rows.length > 0) {
        // One statement for all passages of the email: a round trip per passage cost MariaDB more than the rows.
        // A passage written again without a vector keeps the one it had if its text is unchanged
        // (assignments run left to right: `text` is still the old text when the vector is decided).
        await query(
          pool,
          'indexing passages',
          `INSERT INTO passages (${PASSAGE_COLUMNS.join(', ')})
           VALUES ${rows.map(() => `(${PASSAGE_COLUMNS.map(() => '?').join(', ')})`).join(', ')}
           ON DUPLICATE KEY UPDATE
             embedding_model = IF(VALUES(embedding) IS NULL AND BINARY text = BINARY VALUES(text), embedding_model, VALUES(embedding_model)),
             embedding = IF(VALUES(embedding) IS NULL AND BINARY text = BINARY VALUES(text), embedding, VALUES(embedding)),
             text = VALUES(text), thread_id = VALUES(thread_id), mailbox = VALUES(mailbox),
             account = VALUES(account), direction = VALUES(direction), from_address = VALUES(from_address),
             correspondent = VALUES(correspondent), organisation = VALUES(organisation), title = VALUES(title)`,
          rows.flat(),
        );
      }
      await query(pool, 'pruning old passages', 'DELETE FROM passages WHERE email_id = ? AND idx >= ?', [email.emailId, rows.length]);
      if (email.direction === 'knowledge') {
        await indexKnowledge(pool, email.emailId, email.subject.slice(0, 512), emailPassages(email), vectors, model);
      }
      if (failure) {
        throw new DependencyError(`passages stored without vectors: ${errorMessage(failure)}`, FAILURE_TYPES.indexDegraded, {
          cause: failure,
        });
      }
    },

    async forgetEmails(emailIds: string[], correspondent?: string): Promise<void> {
      // Our sent replies are indexed as `<email id>:draft:<n>:sent`: matched by prefix.
      for (let i = 0; i < emailIds.length; i += FORGET_BATCH) {
        const ids = emailIds.slice(i, i + FORGET_BATCH);
        await query(
          pool,
          'forgetting passages',
          `DELETE FROM passages WHERE email_id IN (${ids.map(() => '?').join(', ')}) OR ${ids.map(() => 'email_id LIKE ?').join(' OR ')}`,
          [...ids, ...ids.map((id) => `${id.replace(/[\\%_]/g, '\\$&')}:draft:%`)],
        );
      }
      if (correspondent) {
        await query(pool, 'forgetting passages of a correspondent', 'DELETE FROM passages WHERE correspondent = ? OR from_address = ?', [
          correspondent,
          correspondent,
        ]);
      }
    },

    async remove(sourceId: string): Promise<void> {
      await query(pool, 'removing passages', 'DELETE FROM passages WHERE email_id = ?', [sourceId]);
      const ids = await knowledgePassageIds(pool, sourceId);
      await query(pool, 'removing knowledge passages', 'DELETE FROM knowledge_passages WHERE source_id = ?', [sourceId]);
      await logKnowledgeChanges(pool, { ids });
    },

    async backfillVectors(limit: number): Promise<VectorBackfill> {
      if (!embedder || limit <= 0) return { sources: [], passages: 0, more: false };
      return backfillVectors(pool, embedder, limit);
    },

    async retrieve(email: IndexableEmail, limit: number, given?: ContextScope, probeGiven?: ProbeVector): Promise<DraftContextItem[]> {
      const s = given ?? contextScope(email);
      const probe = retrievalProbe(email);
      const vector = await probeVector(vectorProbe(email), probeGiven);
      const withVectors = vector !== null;
      const run = <T>(what: string, st: Statement) => query<T[]>(pool, what, st.sql, st.args);
      const rank = async <T extends VectorRow>(candidates: readonly T[], byWords?: readonly T[], background?: readonly number[]) => {
        const features = await featuresOf(candidates, withVectors);
        return rankHybrid<T>({
          background,
          probe,
          probeVector: vector,
          candidates,
          key: passageKey,
          text: (r) => r.text,
          terms: (r) => features.get(r)!.terms,
          vector: (r) => features.get(r)!.vector,
          method,
          minCosine,
          byWords,
        });
      };

      const thread = await run<Row>('reading the thread history', threadHistory(s, email.threadId, email.emailId, limit));
      const theirs = s.correspondent
        ? newestFirst(
            await run<PassageRow>(
              'reading the correspondent’s recent passages',
              theirRecentPassages(s, email.threadId, email.emailId, undefined, withVectors),
            ),
          )
        : [];
      const similar = (await rank(theirs)).slice(0, limit);
      // The correspondent's recent mail in other threads, even when the words differ.
      const sender = theirs
        .filter((r) => r.idx === 0 && r.direction === 'in')
        .sort((a, b) => Number(b.correspondent === s.correspondent) - Number(a.correspondent === s.correspondent))
        .slice(0, SENDER_LIMIT);
      const knowledge = await knowledgeRanking(probe, vector, rank);
      // Our replies to anyone else: reusable wording, never their personal data (masked below).
      const ownReplies =
        s.reuseReplies === 'masked'
          ? (
              await rank(
                await run<PassageRow>('reading our recent replies to others', ownRecentReplies(s, email.threadId, undefined, withVectors)),
              )
            ).slice(0, OWN_REPLY_LIMIT)
          : [];

      const { items, add } = contextCollector();
      const mail = (kind: 'thread' | 'similar' | 'sender', r: Row, match?: Match): DraftContextItem => ({
        sourceId: r.email_id,
        kind,
        text: r.text,
        ...(r.title ? { title: r.title } : {}),
        ...(match ? { match } : {}),
      });
      for (const r of thread) add(mail('thread', r));
      for (const r of similar) add(mail('similar', r.item, r.match));
      const main = items.splice(0).slice(0, limit);
      items.push(...main);
      for (const { item: r, match } of knowledge) {
        add({ sourceId: knowledgeSourceId(r.email_id, r.idx), kind: 'knowledge', text: r.text, title: r.title, match });
      }
      for (const { item: r, match } of ownReplies) add({ ...ownReplyItem(r.email_id, r.text, r.title), match });
      // Sender history comes on top of the limit: it is short, and the budget cuts later anyway.
      for (const r of sender) add(mail('sender', r));
      return items;
    },
  };

  /** MATCH over the knowledge folder with the probe's informative words only (informative-terms.ts). */
  async function searchKnowledgeWords(probe: string, withVectors: boolean): Promise<VectorRow[]> {
    const words = informativeQuery(probe, await knowledgeTerms.frequencies());
    if (!words) return [];
    const search = knowledgeSearch(words, withVectors ? KNOWLEDGE_WORD_CANDIDATES : KNOWLEDGE_LIMIT);
    return query<VectorRow[]>(pool, 'searching the knowledge folder', search.sql, search.args);
  }

  /**
   * The knowledge folder's best passages: MATCH's ranking fused with the cosine over the
   * folder's vectors. A passage only vectors find must pass the floor (`minCosine`).
   */
  async function knowledgeRanking(
    probe: string,
    vector: number[] | null,
    rank: (
      candidates: readonly VectorRow[],
      byWords?: readonly VectorRow[],
      background?: readonly number[],
    ) => Promise<Array<{ item: VectorRow; match: Match }>>,
  ): Promise<Array<{ item: VectorRow; match: Match }>> {
    const withVectors = vector !== null;
    const byWords = method === 'vectors' && withVectors ? [] : await searchKnowledgeWords(probe, withVectors);
    if (!withVectors || !knowledgeVectors || !embedder || !vector) return (await rank(byWords, byWords)).slice(0, KNOWLEDGE_LIMIT);
    // MATCH's rows come with their stored vectors; the nearest neighbours add what words missed.
    const wordKeys = new Set(byWords.map(passageKey));
    const hits = await knowledgeVectors.nearest(vector, KNOWLEDGE_VECTOR_CANDIDATES);
    const byIds = knowledgeByIds(hits.map((h) => h.id));
    const near = hits.length > 0 ? await query<VectorRow[]>(pool, 'reading the nearest knowledge passages', byIds.sql, byIds.args) : [];
    const candidates = [...byWords, ...near.filter((r) => !wordKeys.has(passageKey(r)))];
    // The word gate's median is the folder's, as when every passage was a candidate (hybrid-ranking.ts).
    const background = knowledgeVectors.background(vector, new Set(candidates.map((r) => Number(r.id))));
    return (await rank(candidates, byWords, background)).slice(0, KNOWLEDGE_LIMIT);
  }
}

/**
 * A candidate passage: with the model of its stored vector when vectors rank, and the vector's
 * bytes where the statement read them (the knowledge folder's; for knowledge, its numeric id too).
 */
type VectorRow = Row & { id?: unknown; embedding?: Buffer | null; embedding_model?: string | null };

const passageKey = (r: Pick<Row, 'email_id' | 'idx'>) => `${r.email_id}#${r.idx}`;

/** Newest first, one email's passages in order: the two branches of a scope query merged. */
function newestFirst(rows: PassageRow[]): PassageRow[] {
  return rows.sort((a, b) => b.created_at.getTime() - a.created_at.getTime() || a.email_id.localeCompare(b.email_id) || a.idx - b.idx);
}

/** The knowledge folder's own full-text table, kept in step with its rows in `passages`. */
async function indexKnowledge(
  pool: Pool,
  sourceId: string,
  title: string,
  passages: string[],
  vectors: number[][] | null,
  model: string | null,
): Promise<void> {
  for (const [idx, text] of passages.entries()) {
    await query(
      pool,
      'indexing a knowledge passage',
      `INSERT INTO knowledge_passages (source_id, idx, title, text, embedding, embedding_model) VALUES (?, ?, ?, ?, ?, ?)
       ON DUPLICATE KEY UPDATE
         embedding_model = IF(VALUES(embedding) IS NULL AND BINARY text = BINARY VALUES(text), embedding_model, VALUES(embedding_model)),
         embedding = IF(VALUES(embedding) IS NULL AND BINARY text = BINARY VALUES(text), embedding, VALUES(embedding)),
         title = VALUES(title), text = VALUES(text)`,
      [sourceId, idx, title, text, ...vectorColumns(vectors?.[idx], model)],
    );
  }
  // Every process's nearest-neighbour index re-reads what changed: the written passages, and the pruned ones by the ids they had.
  await logKnowledgeChanges(pool, { sourceId });
  const pruned = await knowledgePassageIds(pool, sourceId, passages.length);
  await query(pool, 'pruning old knowledge passages', 'DELETE FROM knowledge_passages WHERE source_id = ? AND idx >= ?', [
    sourceId,
    passages.length,
  ]);
  await logKnowledgeChanges(pool, { ids: pruned });
}
