/**
 * The context a replayed mail is drafted from, as the product would have found it on the day the
 * mail came: the correspondent's earlier mail in the archive (the same thread first, then their
 * other threads) and the knowledge files dated on or before that day, ranked as live retrieval
 * ranks (shared words and vectors fused, src/retrieval/hybrid-ranking.ts). Nothing dated after the
 * mail is a candidate, and nothing of the live index is read: a replay neither sees today's mail
 * nor leaves anything in the index.
 */
import { CONTEXT_LIMIT, withinBudget } from '../email';
import { DEFAULT_CONTEXT_CHARS, type DraftContextItem } from '../drafting';
import { rankHybrid, type RetrievalMethod, retrievalProbe, splitPassages, vectorProbe, type Embedder, knowledgeFileId } from '../retrieval';
import type { DatedKnowledgeFile } from './dated-knowledge';
import { REPLAY_DIRECTION, type ReplayDirection } from './replay.contract';

const THREAD_ITEMS = 3;
const KNOWLEDGE_ITEMS = 4;
const SENDER_ITEMS = 2;

export interface HistoryMail {
  key: string;
  threadKey: string;
  direction: ReplayDirection;
  subject: string;
  body: string;
  sentAt: Date;
}

export interface ContextInput {
  mail: { key: string; threadKey: string; subject: string; text: string; receivedAt: Date };
  /** The correspondent's mail in the archive; anything not strictly before the mail is dropped here. */
  history: readonly HistoryMail[];
  /** The knowledge files as of the mail's day (dated-knowledge.ts). */
  knowledge: readonly DatedKnowledgeFile[];
}

export interface RankingSettings {
  method: RetrievalMethod;
  minCosine: number;
  contextChars?: number;
}

interface Candidate {
  item: DraftContextItem;
  vector: number[] | null;
}

/** Vectors of passages by their text; knowledge passages recur in every pair, so a worker embeds each once. */
export type VectorCache = Map<string, number[]>;

async function vectorsFor(embedder: Embedder | undefined, texts: string[], cache: VectorCache): Promise<Array<number[] | null>> {
  if (!embedder) return texts.map(() => null);
  const missing = [...new Set(texts.filter((t) => !cache.has(t)))];
  try {
    const fresh = missing.length > 0 ? await embedder.embed(missing, 'passage') : [];
    missing.forEach((t, i) => cache.set(t, fresh[i]!));
  } catch {
    // As live retrieval: the embedder down means ranking by words only.
    return texts.map(() => null);
  }
  return texts.map((t) => cache.get(t) ?? null);
}

export async function asOfContext(
  input: ContextInput,
  settings: RankingSettings,
  embedder: Embedder | undefined,
  cache: VectorCache,
): Promise<DraftContextItem[]> {
  const before = input.history.filter((h) => h.key !== input.mail.key && h.sentAt.getTime() < input.mail.receivedAt.getTime());
  const historyItems: DraftContextItem[] = before.flatMap((h) =>
    splitPassages(`${h.subject}\n\n${h.body}`).map((text, n) => ({
      sourceId: `replay:${h.key}#${n}`,
      kind: h.threadKey === input.mail.threadKey ? ('thread' as const) : ('sender' as const),
      text: h.direction === REPLAY_DIRECTION.team ? `(our reply) ${text}` : text,
      title: h.subject,
    })),
  );
  const knowledgeItems: DraftContextItem[] = input.knowledge.flatMap((f) =>
    splitPassages(`${f.path}\n\n${f.text}`).map((text, n) => ({
      sourceId: `${knowledgeFileId(f.path)}#${n}`,
      kind: 'knowledge' as const,
      text,
      title: f.path,
    })),
  );
  // Knowledge passages are cached across pairs; a correspondent's mail is embedded for this pair only, so the cache stays bounded by the folder.
  const historyVectors = await vectorsFor(
    embedder,
    historyItems.map((c) => c.text),
    new Map(),
  );
  const knowledgeVectors = await vectorsFor(
    embedder,
    knowledgeItems.map((c) => c.text),
    cache,
  );
  const candidates: Candidate[] = [
    ...historyItems.map((item, i) => ({ item, vector: historyVectors[i] ?? null })),
    ...knowledgeItems.map((item, i) => ({ item, vector: knowledgeVectors[i] ?? null })),
  ];
  let probeVector: number[] | null = null;
  if (embedder && candidates.some((c) => c.vector)) {
    probeVector = (await embedder.embed([vectorProbe(input.mail)], 'query').catch(() => [null]))[0] ?? null;
  }
  const rank = (list: Candidate[]) =>
    rankHybrid({
      probe: retrievalProbe(input.mail),
      probeVector,
      candidates: list,
      key: (c) => c.item.sourceId,
      text: (c) => c.item.text,
      vector: (c) => c.vector,
      method: settings.method,
      minCosine: settings.minCosine,
    }).map(({ item, match }) => ({ ...item.item, match }));
  // The thread as it went, newest first: what was said last matters most.
  const thread = candidates
    .filter((c) => c.item.kind === 'thread')
    .reverse()
    .slice(0, THREAD_ITEMS)
    .map((c) => c.item);
  const knowledge = rank(candidates.filter((c) => c.item.kind === 'knowledge')).slice(0, KNOWLEDGE_ITEMS);
  const sender = rank(candidates.filter((c) => c.item.kind === 'sender')).slice(0, SENDER_ITEMS);
  return withinBudget([...thread, ...knowledge, ...sender].slice(0, CONTEXT_LIMIT), settings.contextChars ?? DEFAULT_CONTEXT_CHARS);
}
